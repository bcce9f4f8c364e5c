import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ToolgateError } from '../../core/errors.ts';
import { parseJson } from '../../core/parse-json.ts';
import { StreamAssembler, type StreamAssemblerOptions } from './stream-assembler.ts';

const line = (content: string, extra: Record<string, unknown> = {}): string =>
  JSON.stringify({
    model: 'qwen3:8b',
    created_at: '2025-07-07T20:22:19.184789Z',
    message: { role: 'assistant', content, ...extra },
    done: false,
  });
const DONE =
  '{"model":"qwen3:8b","created_at":"2025-07-07T20:22:19.19314Z","messag' +
  'e":{"role":"assistant","content":""},"done_reason":"stop","done":true,' +
  ('"total_duration":182242375,"load_duration":41295167,"prompt_eval_count":169' +
    ',"prompt_eval_duration":24573166,"eval_count":15,"eval_duration":115959084}');

/** Text pieces, then the final line with the counts. */
const TEXT_BODY = [line('The'), line(' day-ahead'), line(' price is €87.4 ⚡'), DONE].join('\n') + '\n';
/** A thinking model with `think: true`: thinking pieces first, then the answer. */
const THINKING_BODY =
  [
    line('', { thinking: 'The user' }),
    line('', { thinking: ' wants a price.' }),
    line('It is'),
    line(' 87.4.'),
    DONE,
  ].join('\n') + '\n';
/** Tool calls arrive whole, each with an id and a running index, in any line. */
const TOOLS_BODY =
  [
    line('', {
      tool_calls: [
        {
          id: 'call_k3b1x8zq',
          function: { index: 0, name: 'get_spot_price', arguments: { area: 'DE-LU', hours: [14, 15] } },
        },
      ],
    }),
    line('', {
      tool_calls: [{ id: 'call_9fz2m0qa', function: { index: 1, name: 'list_open_orders', arguments: {} } }],
    }),
    DONE,
  ].join('\n') + '\n';
const RUNNER_ERROR = '{"error":"an error was encountered while running the model: CUDA error: out of memory"}';

function assemble(
  body: string,
  options: StreamAssemblerOptions = {},
): { deltas: string[]; assembler: StreamAssembler } {
  const deltas: string[] = [];
  const assembler = new StreamAssembler({ onTextDelta: (t) => deltas.push(t), ...options });
  for (const text of body.split('\n')) {
    if (text.trim() === '') continue;
    assembler.push(parseJson(text));
    if (assembler.finished) break;
  }
  return { deltas, assembler };
}

const isModelError =
  (pattern: RegExp) =>
  (e: unknown): boolean =>
    e instanceof ToolgateError && e.code === 'model_error' && pattern.test(e.message);

describe('StreamAssembler', () => {
  it('text pieces reach onTextDelta in order; the done line gives the finish reason and usage', () => {
    const { deltas, assembler } = assemble(TEXT_BODY);
    assert.deepEqual(deltas, ['The', ' day-ahead', ' price is €87.4 ⚡']);
    assert.equal(assembler.finished, true);
    assert.equal(assembler.delivered, true);
    assert.deepEqual(assembler.finish(), {
      text: 'The day-ahead price is €87.4 ⚡',
      toolCalls: [],
      finishReason: 'stop',
      usage: { promptTokens: 169, completionTokens: 15, totalTokens: 184 },
    });
  });

  it('thinking pieces become reasoning, never text deltas', () => {
    const { deltas, assembler } = assemble(THINKING_BODY);
    assert.deepEqual(deltas, ['It is', ' 87.4.']);
    const result = assembler.finish();
    assert.equal(result.text, 'It is 87.4.');
    assert.equal(result.reasoning, 'The user wants a price.');
  });

  it('collects whole tool calls from any line, arguments serialised from the object, and says tool_calls', () => {
    const { deltas, assembler } = assemble(TOOLS_BODY);
    assert.deepEqual(deltas, []);
    assert.equal(assembler.delivered, false);
    const result = assembler.finish();
    assert.deepEqual(result.toolCalls, [
      { id: 'call_k3b1x8zq', name: 'get_spot_price', arguments: '{"area":"DE-LU","hours":[14,15]}' },
      { id: 'call_9fz2m0qa', name: 'list_open_orders', arguments: '{}' },
    ]);
    assert.equal(result.finishReason, 'tool_calls');
  });

  it('several calls in one line, without ids, get distinct generated ids', () => {
    const body =
      line('', {
        tool_calls: [
          { function: { index: 0, name: 'f', arguments: { a: 1 } } },
          { function: { index: 1, name: 'g', arguments: '{"b":2}' } },
        ],
      }) +
      '\n' +
      DONE;
    const result = assemble(body).assembler.finish();
    assert.deepEqual(
      result.toolCalls.map((c) => [c.name, c.arguments]),
      [
        ['f', '{"a":1}'],
        ['g', '{"b":2}'],
      ],
    );
    assert.match(result.toolCalls[0]?.id ?? '', /^call_/);
    assert.notEqual(result.toolCalls[0]?.id, result.toolCalls[1]?.id);
  });

  it('the done line may carry the last piece and a length cut', () => {
    const body =
      `${line('Half')}\n{"message":{"role":"assistant","content":" an ` +
      `answer"},"done":true,"done_reason":"length","eval_count":2}\n`;
    const { deltas, assembler } = assemble(body);
    assert.deepEqual(deltas, ['Half', ' an answer']);
    assert.equal(assembler.finish().finishReason, 'length');
  });

  it('without a done line it is not finished, and finish() still says what arrived', () => {
    const { assembler } = assemble([line('The'), line(' price')].join('\n'));
    assert.equal(assembler.finished, false);
    assert.equal(assembler.finish().text, 'The price');
  });

  it('an error line before any text is model_error, nothing delivered', () => {
    const assembler = new StreamAssembler({ onTextDelta: () => undefined });
    assert.throws(
      () => assembler.push(parseJson(RUNNER_ERROR)),
      isModelError(/^the model failed mid-stream: an error was encountered while running the model: CUDA error/),
    );
    assert.equal(assembler.delivered, false);
  });

  it('an error line after text is model_error with the provider message in details, text delivered', () => {
    const deltas: string[] = [];
    const assembler = new StreamAssembler({ onTextDelta: (t) => deltas.push(t) });
    assembler.push(parseJson(line('The')));
    let caught: unknown;
    try {
      assembler.push(parseJson(RUNNER_ERROR));
    } catch (error) {
      caught = error;
    }
    assert.ok(caught instanceof ToolgateError && caught.code === 'model_error');
    assert.match(String(caught.details?.['providerMessage']), /CUDA error: out of memory/);
    assert.deepEqual(deltas, ['The']);
    assert.equal(assembler.delivered, true);
  });

  it('a line that is not an object is model_error', () => {
    assert.throws(() => new StreamAssembler().push([1, 2]), isModelError(/not a JSON object: \[1,2\]/));
    assert.throws(() => new StreamAssembler().push('done'), isModelError(/not a JSON object/));
  });

  it('without a text callback nothing counts as delivered', () => {
    const assembler = new StreamAssembler();
    assembler.push(parseJson(line('hi')));
    assert.equal(assembler.delivered, false);
    assert.equal(assembler.finish().text, 'hi');
  });

  it('refuses more tool calls than maxToolCalls, naming providers.ollama.maxToolCalls', () => {
    assert.equal(assemble(TOOLS_BODY, { maxToolCalls: 2, provider: 'ollama' }).assembler.finish().toolCalls.length, 2);
    assert.throws(
      () => assemble(TOOLS_BODY, { maxToolCalls: 1, provider: 'ollama' }),
      isModelError(/maxToolCalls.*providers\.ollama\.maxToolCalls/),
    );
  });

  it('a call nested far too deep is model_error, not a stack overflow', () => {
    let deep: unknown = 0;
    for (let i = 0; i < 20_000; i += 1) deep = [deep];
    const assembler = new StreamAssembler();
    assert.throws(
      () =>
        assembler.push({
          message: {
            role: 'assistant',
            content: '',
            tool_calls: [{ function: { name: 'f', arguments: { a: deep } } }],
          },
          done: false,
        }),
      isModelError(/arguments/),
    );
  });
});
