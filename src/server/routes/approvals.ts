import { ToolgateError, isJsonObject, type JsonObject } from '../../core/index.ts';
import type { ApprovalLinks, LinkRefusal, LinkUse } from '../../core/ports/approval-links.ts';
import { readLimited } from '../../core/read-limited.ts';
import { DEFAULT_MAX_DISCARD_BYTES, isJsonContentType, readJsonBody } from '../body.ts';
import { httpStatusFor } from '../http-status.ts';
import { HttpError, sendJsonResponse } from '../respond.ts';
import type { RequestContext } from '../server-context.ts';
import { APPROVAL_PAGE_HEADERS, confirmPage, decidedPage, refusedPage } from './approval-page.ts';

/** Longest `reason` and `actor` a link's POST records. */
const MAX_REASON_CHARS = 2000;
const MAX_ACTOR_CHARS = 200;

function linksOf(ctx: RequestContext): ApprovalLinks {
  const links = ctx.state.approvalLinks;
  if (links === undefined) {
    throw new ToolgateError(
      'not_found',
      'decision links are off on this server: set approvals.linkSecret (or server.sessionSecret)',
    );
  }
  return links;
}

function sendHtml(ctx: RequestContext, status: number, html: string): void {
  ctx.res.writeHead(status, { ...APPROVAL_PAGE_HEADERS, 'Content-Length': String(Buffer.byteLength(html)) });
  ctx.res.end(html);
}

/** A bot asks for JSON (Accept, or a JSON body); a browser's form gets pages. */
function wantsJson(ctx: RequestContext): boolean {
  const accept = ctx.req.headers.accept ?? '';
  return isJsonContentType(ctx.req.headers['content-type']) || /\bapplication\/json\b/i.test(accept);
}

/** GET /v1/approvals/{token}: the confirm page. Never decides: mail scanners and chat previews open links. */
export async function getApprovalLink(ctx: RequestContext): Promise<void> {
  const shown = await linksOf(ctx).inspect(ctx.params['token'] ?? '');
  if (shown.ok) sendHtml(ctx, 200, confirmPage(shown));
  else sendHtml(ctx, httpStatusFor(shown.code), refusedPage(shown));
}

/**
 * POST /v1/approvals/{token}: decides. From the confirm page (form-encoded, optional `reason`) → an HTML page; from a
 * bot (JSON `{reason?, actor?}`, or Accept: application/json) → `{runId, toolCallId, decision, decided: true}` or an
 * error in the API's shape.
 */
export async function postApprovalLink(ctx: RequestContext): Promise<void> {
  const links = linksOf(ctx);
  const token = ctx.params['token'] ?? '';
  if (wantsJson(ctx)) {
    const body = await readJsonBody(ctx.req, { maxBytes: ctx.state.maxBodyBytes });
    const use = botUse(body);
    const result = await links.use(token, use);
    if (!result.ok) throw refusalError(result);
    const { runId, toolCallId, decision, decided } = result;
    sendJsonResponse(ctx.res, { status: 200, body: { runId, toolCallId, decision, decided }, headers: {} });
    return;
  }
  const form = await readForm(ctx);
  const reason = form.get('reason')?.trim() ?? '';
  if (reason.length > MAX_REASON_CHARS)
    throw new ToolgateError('usage', `"reason" is longer than ${MAX_REASON_CHARS} characters: shorten it`);
  const result = await links.use(token, { via: 'link', ...(reason === '' ? {} : { reason }) });
  if (result.ok) sendHtml(ctx, 200, decidedPage(result));
  else sendHtml(ctx, httpStatusFor(result.code), refusedPage(result));
}

function refusalError(refusal: LinkRefusal): ToolgateError {
  return new ToolgateError(refusal.code, refusal.message, {
    ...(refusal.runId === undefined ? {} : { details: { runId: refusal.runId } }),
  });
}

function botUse(body: unknown): LinkUse {
  if (body === undefined) return { via: 'chat' };
  if (!isJsonObject(body)) throw new ToolgateError('usage', 'the body must be a JSON object: {"reason"?, "actor"?}');
  const unknown = Object.keys(body).filter((key) => key !== 'reason' && key !== 'actor');
  if (unknown.length > 0)
    throw new ToolgateError('usage', `unknown field(s) ${unknown.join(', ')}: the body takes "reason" and "actor"`);
  const reason = text(body, 'reason', MAX_REASON_CHARS);
  const actor = text(body, 'actor', MAX_ACTOR_CHARS);
  return {
    via: 'chat',
    ...(reason === undefined ? {} : { reason }),
    ...(actor === undefined ? {} : { actor }),
  };
}

function text(body: JsonObject, key: string, max: number): string | undefined {
  const value = body[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.trim() === '' || value.length > max)
    throw new ToolgateError('usage', `"${key}" must be a non-empty string of at most ${max} characters`);
  return value.trim();
}

/** The confirm page's form (application/x-www-form-urlencoded); an empty body is an empty form. */
async function readForm(ctx: RequestContext): Promise<URLSearchParams> {
  const maxBytes = ctx.state.maxBodyBytes;
  const read = await readLimited(ctx.req, { maxBytes, discardBytes: DEFAULT_MAX_DISCARD_BYTES });
  if (read.kind === 'too_large')
    throw new HttpError({ status: 413, code: 'usage', message: `the form is larger than ${maxBytes} bytes` });
  if (read.bytes.length === 0) return new URLSearchParams();
  const type = ctx.req.headers['content-type']?.split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') {
    throw new HttpError({
      status: 415,
      code: 'usage',
      message:
        `unsupported Content-Type "${type ?? '(none)'}": POST the confirm page's form ` +
        '(application/x-www-form-urlencoded), or JSON {"reason"?, "actor"?} with "Content-Type: application/json"',
    });
  }
  return new URLSearchParams(new TextDecoder().decode(read.bytes));
}
