import { inputRequired, inputResponse, type InputRequests } from '@modelcontextprotocol/server';
import { copyAsJson, isJsonObject, isRecord, type JsonObject, type UpstreamRequest } from '../core/index.ts';
import { filterRoots } from './roots-filter.ts';
import { lastMessageText, upstreamSummary, type SamplingDecision } from './upstream-requests.ts';

/** The input_required key of the user's approval of a sampling request (asked before the model is). */
export const APPROVE_SAMPLING_KEY = 'toolgate-approve-sampling';
/** The input_required key of the upstream server's own question. */
export const UPSTREAM_REQUEST_KEY = 'upstream-request';

/** What the client's retry said to the question it was asked. */
export type ReadAnswer =
  | { kind: 'approved' }
  | { kind: 'answer'; answer: JsonObject; reason: string }
  | { kind: 'refused'; reason: string }
  | { kind: 'failed'; reason: string };

function policyKey(server: string): string {
  return `gateway.sampling (or gateway.sampling["${server}"])`;
}

/** Why `gateway.sampling` refuses a server's sampling request outright, or undefined when it may be asked. */
export function samplingApproval(server: string, decision: SamplingDecision, canElicit: boolean): string | undefined {
  if (decision === 'allow') return undefined;
  if (decision === 'deny')
    return `toolgate's policy refuses sampling requests of "${server}": ${policyKey(server)} is deny`;
  if (canElicit) return undefined;
  return (
    `toolgate's policy asks the user before a sampling request of "${server}", and the client cannot be asked ` +
    `(it has no elicitation): set ${policyKey(server)} to allow to let it through`
  );
}

/**
 * The embedded requests an upstream question is put to a 2026-07-28 client as. A sampling request under `approve` is
 * first an elicitation form to the user; the model is asked in the next round, once the user allowed it.
 */
export function askedOf(request: UpstreamRequest, approving: boolean): InputRequests {
  const { params } = request;
  if (request.method === 'roots/list') return { [UPSTREAM_REQUEST_KEY]: inputRequired.listRoots() };
  if (request.method === 'elicitation/create') {
    const message = typeof params['message'] === 'string' ? params['message'] : '';
    // The 2026-07-28 URL mode has no elicitationId: the correlation is the exchange's requestState.
    if (params['mode'] === 'url' && typeof params['url'] === 'string')
      return { [UPSTREAM_REQUEST_KEY]: inputRequired.elicitUrl({ message, url: params['url'] }) };
    // The same JSON the server sent (the SDK checked it against the elicitation schema when it arrived).
    return { [UPSTREAM_REQUEST_KEY]: inputRequired.elicit(params as never) };
  }
  if (!approving) return { [UPSTREAM_REQUEST_KEY]: inputRequired.createMessage(params as never) };
  return {
    [APPROVE_SAMPLING_KEY]: inputRequired.elicit({
      mode: 'form',
      message:
        `The MCP server "${request.server}" asks your model to generate a reply: ${upstreamSummary(request)}. ` +
        `Last message: ${lastMessageText(params)}`,
      requestedSchema: {
        type: 'object',
        properties: { decision: { type: 'string', title: 'Let the model answer?', enum: ['allow', 'deny'] } },
        required: ['decision'],
      },
    }),
  };
}

/** Reads the client's answer to the question it was asked (untrusted: shapes are checked, roots filtered). */
export function readAnswer(
  request: UpstreamRequest,
  given: { responses: unknown; approving: boolean; roots: readonly string[] | undefined },
): ReadAnswer {
  const responses = isRecord(given.responses) ? given.responses : undefined;
  if (given.approving) {
    const view = inputResponse(responses, APPROVE_SAMPLING_KEY);
    if (view.kind === 'elicit' && view.action === 'accept' && view.content?.['decision'] === 'allow')
      return { kind: 'approved' };
    return {
      kind: 'refused',
      reason:
        `the user refused the sampling request of "${request.server}" ` +
        `(asked because ${policyKey(request.server)} is approve)`,
    };
  }
  const view = inputResponse(responses, UPSTREAM_REQUEST_KEY);
  const expected = { 'roots/list': 'roots', 'elicitation/create': 'elicit', 'sampling/createMessage': 'sampling' };
  if (view.kind !== expected[request.method])
    return {
      kind: 'failed',
      reason:
        view.kind === 'missing'
          ? `the client's retry carried no answer to the ${request.method} request`
          : `the client answered the ${request.method} request with a ${view.kind} answer`,
    };
  if (view.kind === 'roots') {
    const listed = view.roots.filter((root) => isRecord(root) && typeof root.uri === 'string');
    const roots = filterRoots(listed, given.roots);
    return { kind: 'answer', answer: jsonOf({ roots }), reason: `${roots.length} of ${listed.length} roots shown` };
  }
  if (view.kind === 'elicit') {
    const answer = { action: view.action, ...(view.content === undefined ? {} : { content: view.content }) };
    return { kind: 'answer', answer: jsonOf(answer), reason: `the user answered ${view.action}` };
  }
  if (view.kind === 'sampling')
    return { kind: 'answer', answer: jsonOf(view.result), reason: "the client's model answered" };
  return { kind: 'failed', reason: `the client's retry carried no answer to the ${request.method} request` };
}

/** A client's answer as JSON (as it came over the wire). */
function jsonOf(value: unknown): JsonObject {
  const copy: unknown = copyAsJson(value);
  if (!isJsonObject(copy)) throw new Error('the client answered with something that is not a JSON object');
  return copy;
}
