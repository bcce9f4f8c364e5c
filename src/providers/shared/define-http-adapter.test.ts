import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { after, before, beforeEach, describe, it } from 'node:test';
import { ToolgateError } from '../../core/errors.ts';
import type { ModelRequest, ModelResponse } from '../../core/ports/model-adapter.ts';
import { sendJson, sendRaw } from '../../../test/support/mock-http.ts';
import { defineHttpAdapter, type HttpAdapterOptions, type HttpAdapterSpec } from './define-http-adapter.ts';
import { NDJSON_FRAMING, parseStreamData } from './event-framing.ts';
import { StreamAssembly } from './stream-assembly.ts';
import { asObject, modelResponse } from './wire.ts';

/** A toy API: `{"prompt"}` in; `{"text"}` back whole, or NDJSON lines `{"text"}` … `{"done": true}`. */
class ToyAssembler extends StreamAssembly {
  #finished = false;

  override get finished(): boolean {
    return this.#finished;
  }

  push(chunk: unknown): void {
    const root = asObject(chunk);
    if (typeof root?.['text'] === 'string') this.pushText(root['text']);
    if (root?.['done'] === true) this.#finished = true;
  }

  override finish(): ModelResponse {
    return modelResponse({ text: this.text, toolCalls: [], finishReason: 'stop' });
  }
}

interface Received {
  headers: IncomingMessage['headers'];
  body: unknown;
}

let server: Server;
let base = '';
let received: Received[] = [];
let replies: ((res: ServerResponse) => void)[] = [];

before(async () => {
  server = createServer((req, res) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (piece: string) => (text += piece));
    req.on('end', () => {
      received.push({ headers: req.headers, body: JSON.parse(text) });
      const reply = replies.shift();
      if (reply === undefined) sendJson(res, 500, { error: 'no reply scripted' });
      else reply(res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  assert.ok(address !== null && typeof address === 'object');
  base = `http://127.0.0.1:${address.port}`;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  received = [];
  replies = [];
});

const ask = (stream: boolean): ModelRequest => ({ messages: [{ role: 'user', content: 'hi' }], tools: [], stream });

function toy(options: HttpAdapterOptions = {}, over: Partial<HttpAdapterSpec<string, ToyAssembler>> = {}) {
  const url = `${base}/toy`;
  return defineHttpAdapter<string, ToyAssembler>({
    provider: 'toy',
    url,
    options: { model: 'model', retryBaseDelayMs: 1, ...options },
    headers: { 'x-toy-key': 'secret' },
    body: (request) => JSON.stringify({ prompt: request.messages.at(-1)?.content, stream: request.stream }),
    whole: { expected: 'a toy answer', hint: 'check the toy URL' },
    readWhole: (json) => modelResponse({ text: String(asObject(json)?.['text']), toolCalls: [], finishReason: 'stop' }),
    framing: NDJSON_FRAMING,
    assembler: (assembly) => new ToyAssembler(assembly),
    readEvent: (line, assembler) => assembler.push(parseStreamData(line, { url, what: 'a line' })),
    unfinished: 'no done line',
    retryable: ({ status }) => status === 503,
    httpError: ({ status, bodyText, attempts }) =>
      new ToolgateError('model_bad_request', `toy said ${status} after ${attempts}: ${bodyText}`),
    ...over,
  });
}

async function rejection(promise: Promise<unknown>): Promise<ToolgateError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ToolgateError, String(error));
    return error;
  }
  assert.fail('expected the call to fail');
}

describe('defineHttpAdapter', () => {
  it('a whole answer: the declared body and headers go out, readWhole reads what comes back', async () => {
    replies.push((res) => sendJson(res, 200, { text: 'hello' }));
    const adapter = toy({ headers: { 'X-Toy-Key': 'configured', 'x-extra': '1' } });
    assert.equal(adapter.id, 'toy:model');
    const response = await adapter.generate(ask(false));
    assert.equal(response.text, 'hello');
    assert.deepEqual(received[0]?.body, { prompt: 'hi', stream: false });
    const headers = received[0]?.headers;
    assert.equal(headers?.['content-type'], 'application/json');
    assert.equal(headers?.['accept'], 'application/json');
    // A configured header replaces the declared one of the same name, whatever its case.
    assert.equal(headers?.['x-toy-key'], 'configured');
    assert.equal(headers?.['x-extra'], '1');
  });

  it(
    'a body that is not JSON fails with the declared ' + 'words; a 200 with an error body fails with its message',
    async () => {
      replies.push((res) => void sendRaw(res, '<html>oops</html>', undefined));
      const notJson = await rejection(toy().generate(ask(false)));
      assert.equal(notJson.code, 'model_error');
      assert.match(
        notJson.message,
        new RegExp(
          String.raw`^expected a toy answer from http:\/\/127\.0\.0\.1:\d+\/toy but` +
            String.raw` got no content type: "<html>oops<\/html>"; check the toy URL$`,
        ),
      );
      replies.push((res) => sendJson(res, 200, { error: { message: 'overheated' } }));
      const errorBody = await rejection(toy().generate(ask(false)));
      assert.match(errorBody.message, /answered 200 with an error: overheated/);
    },
  );

  it('streamed events reach the assembler, and its text the caller as it comes', async () => {
    replies.push((res) => {
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      void sendRaw(res, '{"text":"Hel"}\n{"text":"lo"}\n{"done":true}\n', 5);
    });
    const deltas: string[] = [];
    const response = await toy().generate(ask(true), { onTextDelta: (text) => deltas.push(text) });
    assert.equal(response.text, 'Hello');
    assert.deepEqual(deltas, ['Hel', 'lo']);
    assert.equal(received[0]?.headers['accept'], 'application/x-ndjson');
  });

  it('retries a status the spec calls retryable, and a stream cut before its end', async () => {
    replies.push(
      (res) => sendJson(res, 503, { error: 'busy' }),
      (res) => {
        res.writeHead(200, { 'content-type': 'application/x-ndjson' });
        res.end('{"text":"par"}\n');
      },
      (res) => sendJson(res, 200, { text: 'third time' }),
    );
    const response = await toy({ maxRetries: 2 }).generate(ask(true));
    assert.equal(response.text, 'third time');
    assert.equal(received.length, 3);
  });

  it('a status that is not retried becomes the error httpError makes of it', async () => {
    replies.push((res) => sendJson(res, 400, { error: 'bad prompt' }));
    const error = await rejection(toy().generate(ask(false)));
    assert.equal(error.code, 'model_bad_request');
    assert.equal(error.message, 'toy said 400 after 1: {"error":"bad prompt"}');
    assert.equal(received.length, 1);
  });

  it('an abort cancels the call in flight', async () => {
    const controller = new AbortController();
    replies.push((res) => {
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      res.write('{"text":"slow"}\n');
      setTimeout(() => controller.abort(), 20);
      // The body never ends on its own; the abort must end the call.
      res.on('close', () => res.destroy());
    });
    const error = await rejection(toy().generate(ask(true), { signal: controller.signal }));
    assert.equal(error.code, 'cancelled');
  });

  it('refuse fails every call before a request; finalError rewords the final error', async () => {
    const refused = await rejection(
      toy({}, { refuse: () => new ToolgateError('model_auth', 'no key') }).generate(ask(false)),
    );
    assert.equal(refused.message, 'no key');
    assert.equal(received.length, 0);
    replies.push((res) => sendJson(res, 400, { error: 'bad' }));
    const reworded = await rejection(
      toy(
        {},
        {
          finalError: (error) =>
            error instanceof ToolgateError
              ? new ToolgateError(error.code, `${error.message}; see the toy docs`)
              : error,
        },
      ).generate(ask(false)),
    );
    assert.match(reworded.message, /; see the toy docs$/);
  });
});
