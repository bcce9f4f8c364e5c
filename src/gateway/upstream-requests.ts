import type { Server } from '@modelcontextprotocol/server';
import {
  ToolgateError,
  copyAsJson,
  describeError,
  isJsonObject,
  type JsonObject,
  type JsonValue,
  type UpstreamRequest,
} from '../core/index.ts';
import { filterRoots } from './roots-filter.ts';

/** What `gateway.sampling` says of one server's sampling requests. */
export type SamplingDecision = 'allow' | 'approve' | 'deny';
/** The default: a server asking the user's model to generate costs the user and can carry injected instructions. */
export const DEFAULT_SAMPLING: SamplingDecision = 'approve';
/** The longest summary an upstream_request event keeps. */
const MAX_SUMMARY = 300;

export interface UpstreamAnswerOptions {
  /** The session's client, as the gateway serves it. */
  peer: Server;
  request: UpstreamRequest;
  sampling: SamplingDecision;
  /** `gateway.roots`: the root URIs the client's roots are filtered to (absent: unchanged). */
  roots: readonly string[] | undefined;
  /** How long a request forwarded to the client (and a person's answer) may take. */
  timeoutMs: number;
  record: (outcome: { outcome: 'forwarded' | 'denied' | 'failed' | 'cancelled'; reason?: string }) => void;
}

/**
 * Answers an upstream server's request by asking the session's client, under `gateway.sampling` and `gateway.roots`;
 * every request is recorded (`record`) with what became of it. Refusals throw ToolgateError `denied`.
 */
export async function answerUpstreamRequest(options: UpstreamAnswerOptions): Promise<JsonObject> {
  const { peer, request, record } = options;
  const asked = { signal: request.signal, timeout: options.timeoutMs };
  try {
    if (request.method === 'roots/list') {
      const listed = await peer.listRoots(undefined, asked);
      const roots = filterRoots(listed.roots, options.roots);
      record({ outcome: 'forwarded', reason: `${roots.length} of ${listed.roots.length} roots shown` });
      return jsonOf({ roots });
    }
    if (request.method === 'elicitation/create') {
      // The same JSON the server sent (the SDK checked it against the elicitation schema before this handler).
      const answer = await peer.elicitInput(request.params as never, asked);
      record({ outcome: 'forwarded', reason: `the user answered ${answer.action}` });
      return jsonOf(answer);
    }
    const refused = await samplingRefusal(options);
    if (refused !== undefined) {
      record({ outcome: 'denied', reason: refused });
      throw new ToolgateError('denied', refused);
    }
    const answer = await peer.createMessage(request.params as never, asked);
    record({ outcome: 'forwarded' });
    return jsonOf(answer);
  } catch (error) {
    if (error instanceof ToolgateError && error.code === 'denied') throw error;
    record(
      request.signal.aborted
        ? { outcome: 'cancelled', reason: 'the server cancelled its request' }
        : { outcome: 'failed', reason: describeError(error).slice(0, MAX_SUMMARY) },
    );
    throw error;
  }
}

/** Why toolgate's policy refuses this sampling request, or undefined when it may go to the client. */
async function samplingRefusal(options: UpstreamAnswerOptions): Promise<string | undefined> {
  const { server } = options.request;
  const key = `gateway.sampling (or gateway.sampling["${server}"])`;
  if (options.sampling === 'allow') return undefined;
  if (options.sampling === 'deny') return `toolgate's policy refuses sampling requests of "${server}": ${key} is deny`;
  if (options.peer.getClientCapabilities()?.elicitation === undefined) {
    return (
      `toolgate's policy asks the user before a sampling request of "${server}", and the client cannot be asked ` +
      `(it has no elicitation): set ${key} to allow to let it through`
    );
  }
  const answer = await options.peer.elicitInput(
    {
      mode: 'form',
      message:
        `The MCP server "${server}" asks your model to generate a reply: ${upstreamSummary(options.request)}. ` +
        `Last message: ${lastMessageText(options.request.params)}`,
      requestedSchema: {
        type: 'object',
        properties: {
          decision: { type: 'string', title: 'Let the model answer?', enum: ['allow', 'deny'] },
        },
        required: ['decision'],
      },
    },
    { signal: options.request.signal, timeout: options.timeoutMs },
  );
  if (answer.action === 'accept' && answer.content?.['decision'] === 'allow') return undefined;
  return `the user refused the sampling request of "${server}" (asked because ${key} is approve)`;
}

/** A bounded account of a request for its event: never a whole prompt. */
export function upstreamSummary(request: Pick<UpstreamRequest, 'method' | 'params'>): string {
  const { params } = request;
  let text: string;
  if (request.method === 'sampling/createMessage') {
    const messages = Array.isArray(params['messages']) ? params['messages'].length : 0;
    const prefs = params['modelPreferences'];
    const hints = isJsonObject(prefs) && Array.isArray(prefs['hints']) ? prefs['hints'] : [];
    const names = hints.flatMap((hint) =>
      isJsonObject(hint) && typeof hint['name'] === 'string' ? [hint['name']] : [],
    );
    text =
      `${messages} message${messages === 1 ? '' : 's'}, maxTokens ${String(params['maxTokens'])}` +
      (names.length === 0 ? '' : `, model hints ${names.slice(0, 5).join(', ')}`);
  } else if (request.method === 'elicitation/create') {
    const mode = typeof params['mode'] === 'string' ? params['mode'] : 'form';
    text = `${mode}: ${String(mode === 'url' ? params['url'] : params['message'])}`;
  } else {
    text = 'the client roots';
  }
  return text.length > MAX_SUMMARY ? `${text.slice(0, MAX_SUMMARY - 1)}…` : text;
}

/** The text of the request's last message, cut short, so the person asked knows what the model would answer. */
export function lastMessageText(params: JsonObject): string {
  const messages: JsonValue = params['messages'] ?? [];
  const last = Array.isArray(messages) ? messages.at(-1) : undefined;
  const content = isJsonObject(last) ? last['content'] : undefined;
  const text = isJsonObject(content) && typeof content['text'] === 'string' ? content['text'] : '(not text)';
  return text.length > 500 ? `${text.slice(0, 499)}…` : text;
}

/** A client's answer as JSON (as it came over the wire). */
function jsonOf(value: unknown): JsonObject {
  const copy: unknown = copyAsJson(value);
  if (!isJsonObject(copy)) throw new Error('the client answered with something that is not a JSON object');
  return copy;
}
