// The baseline's loop over node:http, with a keep-alive agent, instead of fetch:
// the same work as baseline.ts (the loop is hand-loop.ts, shared) through a
// lighter client than fetch (toolgate's model calls used it before undici,
// baseline-undici.ts), so that toolgate's own work can be told apart from the
// difference between clients. The report shows toolgate against this one too.
import { Agent, request } from 'node:http';
import type { CreateRunner } from '../runner.ts';
import { handLoop, MODEL_HEADERS, StreamedMessage, wholeMessage, type WireMessage } from './hand-loop.ts';

const agent = new Agent({ keepAlive: true });

function post(url: URL, body: string, stream: boolean, onText: () => void): Promise<WireMessage> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', agent, headers: { ...MODEL_HEADERS, 'content-length': Buffer.byteLength(body) } },
      (res) => {
        res.setEncoding('utf8');
        const streamed = stream && res.statusCode === 200 ? new StreamedMessage(onText) : undefined;
        let text = '';
        res.on('data', (chunk: string) => {
          if (streamed === undefined) text += chunk;
          else streamed.push(chunk);
        });
        res.on('end', () => {
          if (res.statusCode !== 200) reject(new Error(`model answered ${res.statusCode}: ${text}`));
          else if (streamed !== undefined) resolve(streamed.finish());
          else {
            try {
              resolve(wholeMessage(text));
            } catch (error) {
              reject(error as Error);
            }
          }
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

export const createRunner: CreateRunner = async (options) => {
  const target = new URL(`${options.url}/chat/completions`);
  return handLoop(options, (body, onText) => post(target, body, options.stream, onText));
};
