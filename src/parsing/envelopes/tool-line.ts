import { scanRegion } from '../scanner.ts';
import type { Envelope } from './envelope.ts';
import { DEFAULT_MAX_ENVELOPES } from './envelope.ts';

/**
 * The line form `tool:name {json}` (seed 003's orchestrator asks for it): at
 * the start of a line, lower-case `tool:`, a tool name, then JSON arguments
 * (which may run over several lines) or nothing.
 */

const LINE_RE = /^[ \t]*tool:[ \t]*([A-Za-z_][\w.-]*)[ \t]*/gm;

export function findToolLines(text: string): Envelope[] {
  const envelopes: Envelope[] = [];
  if (!text.includes('tool:')) return envelopes;
  let resumeAt = 0;
  for (const match of text.matchAll(LINE_RE)) {
    if (envelopes.length >= DEFAULT_MAX_ENVELOPES) break;
    if (match.index < resumeAt) continue;
    const name = match[1] ?? '';
    const after = match.index + match[0].length;
    const next = text.charAt(after);
    const start = match.index + match[0].length - match[0].trimStart().length;
    if (next === '{') {
      const region = scanRegion(text, after);
      envelopes.push({
        family: 'tool_line',
        span: { start, end: region.end },
        strong: true,
        payloads: [
          {
            kind: 'named',
            name,
            args: { kind: 'json', span: { start: region.start, end: region.end }, closed: region.closed },
            span: { start, end: region.end },
            reachesEnd: !region.closed,
          },
        ],
        unclosed: !region.closed,
      });
      resumeAt = region.end;
    } else if (next === '\n' || next === '\r' || next === '') {
      envelopes.push({
        family: 'tool_line',
        span: { start, end: after },
        strong: true,
        payloads: [
          { kind: 'named', name, args: { kind: 'none' }, span: { start, end: after }, reachesEnd: next === '' },
        ],
        unclosed: false,
      });
    }
  }
  return envelopes;
}
