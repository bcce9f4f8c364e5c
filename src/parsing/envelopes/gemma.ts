import { looksPythonic } from '../pythonic.ts';
import type { Span } from '../types.ts';
import type { Envelope, Payload } from './envelope.ts';
import { DEFAULT_MAX_ENVELOPES, trimSpan } from './envelope.ts';
import { findFences } from './fence.ts';
import type { Fence } from './fence.ts';
import { TOKEN_FAMILIES } from './token-families.ts';

/**
 * Gemma's fenced calls: ```tool_code blocks hold pythonic calls, one per line
 * or as a list (`get_weather(city="Paris")`), sometimes wrapped in `print(…)`
 * the way Gemma was shown code execution. ```tool_output blocks hold results:
 * an envelope with no payload, so nothing in them is read as a call.
 */

const G = TOKEN_FAMILIES.gemma;
const PRINT_RE = /^print\s*\(/;

/** `print(get_weather(city="Paris"))` on each line: the calls inside, one payload per line. */
function printedCalls(text: string, body: Span): Payload[] | undefined {
  const payloads: Payload[] = [];
  let lineStart = body.start;
  while (lineStart < body.end) {
    const newline = text.indexOf('\n', lineStart);
    const lineEnd = newline < 0 || newline > body.end ? body.end : newline;
    const line = trimSpan(text, { start: lineStart, end: lineEnd });
    if (line.start < line.end) {
      const head = PRINT_RE.exec(text.slice(line.start, Math.min(line.end, line.start + 16)));
      if (head === null || text.charAt(line.end - 1) !== ')') return undefined;
      payloads.push({
        kind: 'pythonic',
        span: trimSpan(text, { start: line.start + head[0].length, end: line.end - 1 }),
      });
    }
    lineStart = lineEnd + 1;
  }
  return payloads.length > 0 ? payloads : undefined;
}

function callEnvelope(text: string, fence: Fence): Envelope | undefined {
  const body = trimSpan(text, fence.content);
  const unclosed = !fence.closed;
  const repairs = unclosed ? { repairs: ['missing_closer' as const] } : {};
  if (body.start >= body.end) {
    if (!unclosed) return undefined;
    // Cut right after the opening line.
    return {
      family: 'gemma',
      span: fence.span,
      strong: true,
      payloads: [{ kind: 'named', name: '', args: { kind: 'none' }, span: fence.span, reachesEnd: true }],
      unclosed,
      info: fence.info,
    };
  }
  let payloads: Payload[];
  if (PRINT_RE.test(text.slice(body.start, body.start + 16))) {
    payloads = printedCalls(text, body) ?? [{ kind: 'pythonic', span: body }];
  } else if (looksPythonic(text, body.start, body.end)) {
    payloads = [{ kind: 'pythonic', span: body }];
  } else if (text.charAt(body.start) === '{' || text.charAt(body.start) === '[') {
    payloads = [{ kind: 'json', span: body }];
  } else {
    payloads = [
      {
        kind: 'malformed',
        span: fence.span,
        message: `The \`\`\`${G.callFence} block holds no call: expected name(key=value, …), one call per line.`,
      },
    ];
  }
  return { family: 'gemma', span: fence.span, strong: true, payloads, unclosed, info: fence.info, ...repairs };
}

export function findGemmaCalls(text: string): Envelope[] {
  const envelopes: Envelope[] = [];
  if (!text.includes(G.callFence) && !text.includes(G.resultFence)) return envelopes;
  for (const fence of findFences(text)) {
    if (envelopes.length >= DEFAULT_MAX_ENVELOPES) break;
    if (fence.info === G.callFence) {
      const env = callEnvelope(text, fence);
      if (env !== undefined) envelopes.push(env);
    } else if (fence.info === G.resultFence) {
      envelopes.push({
        family: 'gemma',
        span: fence.span,
        strong: true,
        payloads: [],
        unclosed: !fence.closed,
        info: fence.info,
      });
    }
  }
  return envelopes;
}
