import type { ServerResponse } from 'node:http';
import { escapeHtml } from '../escape-html.ts';

/** A problem with a sign-in, as the person in the browser should read it. */
export interface LoginProblem {
  status: number;
  title: string;
  /** What went wrong and how to fix it. */
  message: string;
}

/**
 * A small HTML page instead of JSON: the sign-in routes are browser navigations, so the person sees what went wrong
 * and a way back to the console. No script, nothing loaded; never a stack trace.
 */
export function sendLoginProblem(res: ServerResponse, problem: LoginProblem): void {
  const page =
    '<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>toolgate sign-in</title>' +
    '<meta name="viewport" content="width=device-width, initial-scale=1"></head>\n<body>' +
    `<main role="alert" data-testid="sign-in-problem"><h1>${escapeHtml(problem.title)}</h1>` +
    `<p>${escapeHtml(problem.message)}</p>` +
    '<p><a href="/#/sign-in">Back to the console to sign in again</a></p></main></body></html>\n';
  const body = Buffer.from(page, 'utf8');
  res.writeHead(problem.status, {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Length': String(body.length),
    'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'; base-uri 'none'",
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cache-Control': 'no-store',
  });
  res.end(body);
}
