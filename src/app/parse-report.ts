import type { RunEvent, RunStore } from '../core/index.ts';
import { matchModelPattern } from '../gate/index.ts';

/** Runs and events read per store call: the report never holds more than a page of a big store. */
export const DEFAULT_REPORT_RUN_PAGE = 200;
export const DEFAULT_REPORT_EVENT_PAGE = 500;
/** Characters of a reply kept as a group's example (its start and its end, where calls usually are). */
export const DEFAULT_EXCERPT_CHARS = 200;

/** One model's replies of one kind: a repair kind, or a diagnostic code. */
export interface ParseReportGroup {
  model: string;
  /** `repair`: a repair kind of a `repaired` diagnostic; `diagnostic`: any other diagnostic's code. */
  type: 'repair' | 'diagnostic';
  kind: string;
  /** Replies with this kind (a reply counts once per kind). */
  replies: number;
  /** The first reply found with it. */
  example: { runId: string; seq: number; step: number; excerpt: string; message: string };
}

export interface ParseReport {
  /** Runs read (of the model pattern, when one was given). */
  runs: number;
  /** Model replies read (assistant_message events). */
  replies: number;
  /** Replies that were repaired or had a diagnostic. */
  flagged: number;
  /** Most replies first, then by model and kind. */
  groups: ParseReportGroup[];
}

export interface ParseReportOptions {
  store: RunStore;
  /** Only runs of models that match this pattern (`openai:*`, `ollama:qwen*`). */
  model?: string;
  runPage?: number;
  eventPage?: number;
  excerptChars?: number;
}

type Diagnostic = NonNullable<RunEvent<'assistant_message'>['data']['diagnostics']>[number];

// Replies recorded before `repairs` was kept name the repair kinds in the message only.
const REPAIRED_MESSAGE = /^Repaired the call to "[^"\n]*": ([a-z_]+(?:, [a-z_]+)*)\.$/;

/**
 * What the models of a store did that the parser had to repair or could not
 * use: every `assistant_message` with diagnostics, grouped by the run's model
 * and the kind (repair kind or diagnostic code), with a count and one example
 * each. Reads the store a page of runs and a page of events at a time.
 */
export async function parseReport(options: ParseReportOptions): Promise<ParseReport> {
  const { store } = options;
  const runPage = options.runPage ?? DEFAULT_REPORT_RUN_PAGE;
  const eventPage = options.eventPage ?? DEFAULT_REPORT_EVENT_PAGE;
  const groups = new Map<string, ParseReportGroup>();
  const report: ParseReport = { runs: 0, replies: 0, flagged: 0, groups: [] };
  let cursor: string | undefined;
  do {
    const page = await store.listRuns({ limit: runPage, ...(cursor === undefined ? {} : { cursor }) });
    for (const run of page.runs) {
      if (options.model !== undefined && !matchModelPattern(options.model, run.model)) continue;
      report.runs++;
      for (let after = 0; ;) {
        const events = await store.readEvents(run.id, { after, limit: eventPage });
        for (const event of events) {
          if (event.type !== 'assistant_message') continue;
          report.replies++;
          const kinds = kindsOf(event.data.diagnostics ?? []);
          if (kinds.size === 0) continue;
          report.flagged++;
          for (const [key, { type, kind, message }] of kinds) {
            const groupKey = `${run.model}\u0000${key}`;
            const group = groups.get(groupKey);
            if (group !== undefined) group.replies++;
            else {
              const example = {
                runId: run.id,
                seq: event.id,
                step: event.data.step,
                excerpt: excerptOf(replyText(event.data), options.excerptChars ?? DEFAULT_EXCERPT_CHARS),
                message,
              };
              groups.set(groupKey, { model: run.model, type, kind, replies: 1, example });
            }
          }
        }
        if (events.length < eventPage) break;
        after = events.at(-1)?.id ?? after;
      }
    }
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  report.groups = [...groups.values()].sort(
    (a, b) => b.replies - a.replies || a.model.localeCompare(b.model) || a.kind.localeCompare(b.kind),
  );
  return report;
}

/** The kinds of one reply, each with the message that showed it first. */
function kindsOf(
  diagnostics: readonly Diagnostic[],
): Map<string, { type: 'repair' | 'diagnostic'; kind: string; message: string }> {
  const kinds = new Map<string, { type: 'repair' | 'diagnostic'; kind: string; message: string }>();
  for (const d of diagnostics) {
    const repairs =
      d.code === 'repaired' ? (d.repairs ?? REPAIRED_MESSAGE.exec(d.message)?.[1]?.split(', ')) : undefined;
    if (repairs === undefined || repairs.length === 0) {
      if (!kinds.has(`diagnostic ${d.code}`))
        kinds.set(`diagnostic ${d.code}`, { type: 'diagnostic', kind: d.code, message: d.message });
      continue;
    }
    for (const kind of repairs)
      if (!kinds.has(`repair ${kind}`)) kinds.set(`repair ${kind}`, { type: 'repair', kind, message: d.message });
  }
  return kinds;
}

/** The reply as the model wrote it: its text, else its reasoning, else its native calls. */
function replyText(data: RunEvent<'assistant_message'>['data']): string {
  if (data.text.trim() !== '') return data.text;
  if (data.reasoning !== undefined && data.reasoning.trim() !== '') return data.reasoning;
  return data.toolCalls.map((c) => `${c.name}(${c.arguments})`).join('\n');
}

/** A short excerpt: the whole reply when it is short, else its start and its end. */
export function excerptOf(text: string, chars: number): string {
  const flat = text.trim();
  if (flat.length <= chars) return flat;
  const half = Math.max(1, Math.floor((chars - 3) / 2));
  return `${flat.slice(0, half)} … ${flat.slice(flat.length - half)}`;
}
