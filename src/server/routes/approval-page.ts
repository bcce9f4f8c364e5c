import type { LinkDecision, LinkRefusal, LinkTarget } from '../../core/ports/approval-links.ts';
import { escapeHtml } from '../escape-html.ts';

/**
 * The decision link's pages: self-contained (no script, no external asset), so the CSP allows nothing but inline
 * style and a form back to this server; nobody may frame them (a confirm button must not be clickjacked).
 */
export const APPROVAL_PAGE_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/** The token is in the URL: no cache keeps the page, no Referer carries it away. */
export const APPROVAL_PAGE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Type': 'text/html; charset=utf-8',
  'Content-Security-Policy': APPROVAL_PAGE_CSP,
  'Cache-Control': 'no-store',
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
};

const STYLE =
  'body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;color:#1b1f24}' +
  'pre{background:#f3f4f6;padding:.75rem;overflow:auto;border-radius:4px}' +
  'dt{font-weight:600}dd{margin:0 0 .5rem}textarea{width:100%;min-height:4rem}' +
  'button{font:inherit;padding:.5rem 1.25rem;border-radius:4px;border:1px solid #555;cursor:pointer}' +
  '.approve button{background:#1a7f37;color:#fff}.reject button{background:#cf222e;color:#fff}' +
  '.note{color:#57606a}';

function page(title: string, body: string): string {
  return (
    `<!doctype html>\n<html lang="en"><head><meta charset="utf-8">` +
    `<meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<meta name="referrer" content="no-referrer"><title>${escapeHtml(title)} · toolgate</title>` +
    `<style>${STYLE}</style></head><body>${body}</body></html>\n`
  );
}

function consoleLink(runId: string | undefined): string {
  if (runId === undefined) return '';
  return `<p><a href="/#/runs/${encodeURIComponent(runId)}">Open run ${escapeHtml(runId)} in the console</a></p>`;
}

const WHY: Readonly<Record<LinkTarget['reason'], string>> = {
  policy: 'the policy asks a person to approve this call',
  untrusted_output: 'a write that follows untrusted tool output',
  outcome_unknown: 'the call was sent and no answer came: it may or may not have happened',
};

/** GET: what the link would do, and a Confirm button (a form POSTing to the same URL). Nothing is decided yet. */
export function confirmPage(target: LinkTarget): string {
  const verb = target.decision === 'approve' ? 'Approve' : 'Reject';
  const detail = target.detail === undefined ? '' : ` (${target.detail})`;
  return page(
    `${verb} ${target.name}`,
    `<h1>${verb} <code>${escapeHtml(target.name)}</code>?</h1>` +
      `<dl><dt>Run</dt><dd><code>${escapeHtml(target.runId)}</code>` +
      `${target.tenantId === undefined ? '' : ` (tenant ${escapeHtml(target.tenantId)})`}</dd>` +
      `<dt>Call</dt><dd><code>${escapeHtml(target.toolCallId)}</code> (${target.effect})</dd>` +
      `<dt>Why it waits</dt><dd>${escapeHtml(WHY[target.reason] + detail)}</dd>` +
      `<dt>Arguments</dt><dd><pre>${escapeHtml(JSON.stringify(target.arguments, null, 2))}</pre></dd>` +
      `<dt>This link works until</dt><dd>${escapeHtml(target.expiresAt)}, once</dd></dl>` +
      `<form method="post" class="${target.decision}">` +
      `<p><label for="reason">Reason (optional${target.decision === 'reject' ? ', the model is told' : ''})</label>` +
      `<textarea id="reason" name="reason" maxlength="2000"></textarea></p>` +
      `<p><button type="submit">Confirm: ${verb.toLowerCase()}</button></p></form>` +
      `<p class="note">Opening this page decided nothing; only the button does.</p>` +
      consoleLink(target.runId),
  );
}

/** POST from the page: the decision made. */
export function decidedPage(decision: LinkDecision): string {
  const done = decision.decision === 'approve' ? 'Approved' : 'Rejected';
  return page(
    done,
    `<h1>${done}</h1><p>Call <code>${escapeHtml(decision.toolCallId)}</code> of run ` +
      `<code>${escapeHtml(decision.runId)}</code> was ${done.toLowerCase()}; the run goes on.</p>` +
      consoleLink(decision.runId),
  );
}

/** Why the link did nothing. */
export function refusedPage(refusal: LinkRefusal): string {
  return page(
    'Nothing was decided',
    `<h1>Nothing was decided</h1><p>${escapeHtml(refusal.message)}</p>` + consoleLink(refusal.runId),
  );
}
