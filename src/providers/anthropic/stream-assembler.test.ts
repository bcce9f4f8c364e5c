import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ToolgateError } from '../../core/errors.ts';
import { RetryableFailure } from '../shared/request-loop.ts';
import { SseParser } from '../shared/sse-reader.ts';
import { StreamAssembler } from './stream-assembler.ts';

/** Feeds SSE text through the shared parser into an assembler, recording the text deltas. */
function assemble(
  text: string,
  options: { maxToolCalls?: number; callback?: boolean } = {},
): { deltas: string[]; assembler: StreamAssembler } {
  const deltas: string[] = [];
  const assembler = new StreamAssembler({
    provider: 'anthropic',
    ...(options.maxToolCalls === undefined ? {} : { maxToolCalls: options.maxToolCalls }),
    ...(options.callback === false ? {} : { onTextDelta: (t: string) => deltas.push(t) }),
  });
  const parser = new SseParser();
  for (const event of [...parser.push(text), ...parser.end()]) assembler.push(event.event, JSON.parse(event.data));
  return { deltas, assembler };
}

const START =
  `event: message_start
data: {"type":"message_start","message":{"id":"msg_01XFDUDYJgAACzvnptvVoYEL","type":"message","role":"ass` +
  (`istant","content":[],"model":"claude-sonnet-4-5-20250929","stop_reason":null,"stop_sequence":null,"usa` +
    `ge":{"input_tokens":472,"cache_creation_input_tokens":0,"cache_read_input_tokens":1024,"output_tokens":2}}}

`);
const STOP = `event: message_stop
data: {"type":"message_stop"}

`;

/** Text in pieces, then two parallel tool_use blocks whose partial_json is split mid-token, one starting with "". */
const PARALLEL_TOOLS =
  `${START}event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}

event: ping
data: {"type": "ping"}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"I'll check"}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" both areas — €/MWh."}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: content_block_start
data: {"type":"content_block_start","index":1,"content_block":{"type":"tool_u` +
  (`se","id":"toolu_01T1x1fJ34qAmk2tNTrN7Up6","name":"get_spot_price","input":{}}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\\"area\\": \\"DE"}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"-LU\\", \\"ho"}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"ur\\": 1"}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"4}"}}

event: content_block_stop
data: {"type":"content_block_stop","index":1}

event: content_block_start
data: {"type":"content_block_start","index":2,"content_block":{"type":"tool_u` +
    `se","id":"toolu_01Ve5EcXsKVcYxm1DdErXtbP","name":"get_spot_price","input":{}}}

event: content_block_delta
data: {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\\"area\\": `) +
  `\\"FR\\", \\"hour\\": 14, \\"note\\": \\"Ünï"}}

event: content_block_delta
data: {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"cødé ⚡\\"}"}}

event: content_block_stop
data: {"type":"content_block_stop","index":2}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":89}}

${STOP}`;

const THINKING =
  `${START}event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"The user wants DE-LU. "}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"I ` +
  `should call the price tool."}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"signature_d` +
  (`elta","signature":"EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds"}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: content_block_start
data: {"type":"content_block_start","index":1,"content_block":{"` +
    `type":"redacted_thinking","data":"EmwKAhgBEgy3va3pzix/LafPsn4a"}}

event: content_block_stop
data: {"type":"content_block_stop","index":1}

event: content_block_start
data: {"type":"content_block_start","index":2,"content_block":{"ty` +
    (`pe":"tool_use","id":"toolu_01","name":"get_spot_price","input":{}}}

event: content_block_delta
data: {"type":"content_block_delta","index":2,"delta":{"type":` +
      `"input_json_delta","partial_json":"{\\"area\\":\\"DE-LU\\"}"}}

event: content_block_stop
data: {"type":"content_block_stop","index":2}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null`)) +
  `},"usage":{"input_tokens":480,"cache_creation_input_tokens":300,"output_tokens":120}}

${STOP}`;

const textPiece = (text: string, index = 0): string =>
  `event: content_block_delta\ndata: ` +
  `${JSON.stringify({ type: 'content_block_delta', index, delta: { type: 'text_delta', text } })}\n\n`;
const textStart =
  'event: content_block_start\ndata: ' +
  '{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n';
const overloaded =
  'event: error\ndata: {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}\n\n';

describe('StreamAssembler', () => {
  it('text in pieces and two parallel tool_use blocks: fragments joined exactly as received, per index', () => {
    const { deltas, assembler } = assemble(PARALLEL_TOOLS);
    assert.equal(assembler.finished, true);
    const result = assembler.finish();
    assert.deepEqual(deltas, ["I'll check", ' both areas — €/MWh.']);
    assert.equal(result.text, "I'll check both areas — €/MWh.");
    assert.deepEqual(result.toolCalls, [
      { id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6', name: 'get_spot_price', arguments: '{"area": "DE-LU", "hour": 14}' },
      {
        id: 'toolu_01Ve5EcXsKVcYxm1DdErXtbP',
        name: 'get_spot_price',
        arguments: '{"area": "FR", "hour": 14, "note": "Ünïcødé ⚡"}',
      },
    ]);
    assert.equal(result.finishReason, 'tool_calls');
    assert.deepEqual(result.usage, {
      promptTokens: 1496,
      completionTokens: 89,
      totalTokens: 1585,
      cacheReadTokens: 1024,
    });
    assert.equal(result.providerData, undefined);
    assert.equal(result.reasoning, undefined);
  });

  it('thinking and its signature become reasoning and providerData; message_delta counts overwrite the start', () => {
    const { deltas, assembler } = assemble(THINKING);
    const result = assembler.finish();
    assert.deepEqual(deltas, []);
    assert.equal(assembler.delivered, false);
    assert.equal(result.reasoning, 'The user wants DE-LU. I should call the price tool.');
    assert.deepEqual(result.providerData, {
      anthropic: {
        thinking: [
          {
            type: 'thinking',
            thinking: 'The user wants DE-LU. I should call the price tool.',
            signature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds',
          },
          { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix/LafPsn4a' },
        ],
      },
    });
    assert.deepEqual(result.toolCalls, [{ id: 'toolu_01', name: 'get_spot_price', arguments: '{"area":"DE-LU"}' }]);
    assert.deepEqual(result.usage, {
      promptTokens: 480 + 300 + 1024,
      completionTokens: 120,
      totalTokens: 1924,
      cacheReadTokens: 1024,
      cacheWriteTokens: 300,
    });
  });

  it('a tool_use block with no partial_json (or only empty ones) keeps the input of its start block', () => {
    const start = (index: number, id: string): string => {
      const block = { type: 'tool_use', id, name: 'list_orders', input: {} };
      const data = JSON.stringify({ type: 'content_block_start', index, content_block: block });
      return `event: content_block_start\ndata: ${data}\n\n`;
    };
    const empty =
      'event: content_block_delta\ndata: ' +
      '{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":""}}\n\n';
    const result = assemble(`${START}${start(0, 'toolu_a')}${start(1, 'toolu_b')}${empty}${STOP}`).assembler.finish();
    assert.deepEqual(
      result.toolCalls.map((c) => c.arguments),
      ['{}', '{}'],
    );
    assert.equal(result.finishReason, 'tool_calls');
  });

  it('ignores ping, unknown events and unknown delta types; uses the data type when the event line is missing', () => {
    const text =
      `${START}event: brand_new_event\ndata: {"type":"brand_new_event","x":1}\n\n${textStart}data: ` +
      (`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"hi"}}\n\nevent: ` +
        (`content_block_delta\ndata: ` +
          `{"type":"content_block_delta","index":0,"delta":{"type":"citations_delta","citation":{}}}\n\n${STOP}`));
    const { deltas, assembler } = assemble(text);
    assert.deepEqual(deltas, ['hi']);
    assert.equal(assembler.finish().finishReason, 'stop');
  });

  it('without message_stop the answer is not finished', () => {
    const { assembler } = assemble(`${START}${textStart}${textPiece('partial')}`);
    assert.equal(assembler.finished, false);
  });

  it('an overloaded error before any text is a RetryableFailure, like HTTP 529', () => {
    assert.throws(
      () => assemble(`${START}${overloaded}`),
      (e: unknown) =>
        e instanceof RetryableFailure && e.status === 529 && !e.delivered && /Overloaded/.test(e.bodyText),
    );
    assert.throws(
      () =>
        assemble(
          `${START}event: error\ndata: ` +
            `{"type":"error","error":{"type":"api_error","message":"Internal server error"}}\n\n`,
        ),
      (e: unknown) => e instanceof RetryableFailure && e.status === 500,
    );
  });

  it('an overloaded error after text reached the caller is final, with the provider message', () => {
    assert.throws(
      () => assemble(`${START}${textStart}${textPiece('The price')}${overloaded}`),
      (e: unknown) =>
        e instanceof ToolgateError && e.code === 'model_unavailable' && /not retried.*Overloaded/.test(e.message),
    );
  });

  it('other error types are final at once', () => {
    assert.throws(
      () =>
        assemble(
          `${START}event: error\ndata: ` +
            `{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long"}}\n\n`,
        ),
      (e: unknown) => e instanceof ToolgateError && e.code === 'model_error' && /prompt is too long/.test(e.message),
    );
  });

  it('refuses more tool_use blocks than maxToolCalls, naming the provider option', () => {
    assert.throws(
      () => assemble(PARALLEL_TOOLS, { maxToolCalls: 1 }),
      (e: unknown) =>
        e instanceof ToolgateError &&
        e.code === 'model_error' &&
        /maxToolCalls.*providers\.anthropic\.maxToolCalls/.test(e.message),
    );
  });

  it('a huge block index sizes nothing', () => {
    const start =
      'event: content_block_start\ndata: ' +
      ('{"type":"content_block_start","index":1e9,"content_block' +
        '":{"type":"tool_use","id":"t","name":"f","input":{}}}\n\n');
    const piece =
      'event: content_block_delta\ndata: ' +
      '{"type":"content_block_delta","index":1e9,"delta":{"type":"input_json_delta","partial_json":"{\\"a\\":1}"}}\n\n';
    assert.equal(assemble(`${START}${start}${piece}${STOP}`).assembler.finish().toolCalls[0]?.arguments, '{"a":1}');
  });

  it('an event whose data is not an object is model_error', () => {
    assert.throws(
      () => new StreamAssembler().push('message_start', [1]),
      (e: unknown) => e instanceof ToolgateError && e.code === 'model_error',
    );
  });
});
