import {
  isJsonObject,
  type DecisionSource,
  type JsonValue,
  type Run,
  type RunEvent,
  type RunEventDataMap,
} from '../core/index.ts';
import type { CliIO } from './cli-io.ts';
import { formatTokens } from './format-usage.ts';
import { gateDecisionLines } from './gate-decision-lines.ts';
import { truncate } from './truncate.ts';
import { approvalWhy } from './approval-why.ts';
import { notifiedNote, sourceNote, timedOutNote } from '../client/approval-notes.ts';

/** What a plan step's gate decision adds after its effect. */
const DECISION_NOTES: Readonly<Record<string, string>> = {
  approval_required: ', needs approval',
  dry_run: ', dry run',
};

export { gateDecisionLines } from './gate-decision-lines.ts';

const MAX_ARGS_CHARS = 160;
const MAX_RESULT_CHARS = 200;

export interface EventPrinter {
  print(event: RunEvent): void;
  /** Writes the closing summary once the run has ended. */
  end(run: Run): void;
}

/**
 * Human output: the answer streams to stdout; one line per tool call and per
 * result, what the gate did to a call (normalised or injected arguments, a
 * dry run, an approval asked for and decided), and the summary, go to stderr
 * (so `> answer.txt` captures the answer).
 * JSON output: every event on its own line, exactly as stored.
 */
export function createEventPrinter(options: { io: CliIO; json: boolean }): EventPrinter {
  const { io } = options;
  if (options.json) {
    return {
      print: (event) => io.stdout.write(`${JSON.stringify(event)}\n`),
      end: () => undefined,
    };
  }
  const color = io.stderr.isTTY === true && io.env['NO_COLOR'] === undefined;
  const paint = (open: number, close: number) => (s: string) => (color ? `\u001b[${open}m${s}\u001b[${close}m` : s);
  const dim = paint(2, 22);
  const red = paint(31, 39);
  const green = paint(32, 39);
  const yellow = paint(33, 39);
  const started = Date.now();
  let streamedStep = 0;
  let lineOpen = false;
  /**
   * The answer text already on stdout (a final answer that is something else — a tool's return-direct result, a plan's
   * answer — is printed at the end).
   */
  let shownAnswer: string | undefined;
  const closeLine = () => {
    if (lineOpen) io.stdout.write('\n');
    lineOpen = false;
  };
  // What the gate did to a call is shown once, under the line that introduces
  // the call (→, ⊘ or ⏸): its gate_decision arrives just before that line, and
  // again after an approval.
  const gateLines = new Map<string, string[]>();
  const shown = new Set<string>();
  const names = new Map<string, string>();
  const flush = (toolCallId: string) => {
    for (const line of gateLines.get(toolCallId) ?? []) io.stderr.write(`${line}\n`);
    gateLines.delete(toolCallId);
  };

  return {
    print(event) {
      switch (event.type) {
        case 'run_started':
          if (event.data.dryRun === true)
            io.stderr.write(
              `${yellow('⊘ dry run: reads execute; writes are validated and previewed, never executed')}\n`,
            );
          for (const missing of event.data.unavailable ?? []) {
            io.stderr.write(
              `${yellow(
                `⚠ tool server "${missing.server}" is unavailable, its tools ` +
                  `are left out: ${truncate(missing.reason, MAX_RESULT_CHARS)}`,
              )}\n`,
            );
          }
          break;
        case 'assistant_delta':
          shownAnswer = (streamedStep === event.data.step ? (shownAnswer ?? '') : '') + event.data.text;
          streamedStep = event.data.step;
          io.stdout.write(event.data.text);
          lineOpen = !event.data.text.endsWith('\n');
          break;
        case 'assistant_message': {
          // A strategy's side call (plan, critique, route) is not an answer: its outcome event says what it decided.
          if (event.data.purpose !== undefined) break;
          const text = event.data.content ?? event.data.text;
          // Not streamed (the model answered in one piece): print it now.
          if (streamedStep !== event.data.step && text !== '') {
            io.stdout.write(text);
            lineOpen = !text.endsWith('\n');
          }
          shownAnswer = (event.data.calls ?? event.data.toolCalls).length === 0 ? text : undefined;
          closeLine();
          break;
        }
        case 'plan_created':
        case 'plan_revised': {
          closeLine();
          const d = event.data;
          const writes =
            d.writes.length === 0 ? 'no writes' : `${d.writes.length} write${d.writes.length === 1 ? '' : 's'}`;
          const head =
            event.type === 'plan_revised'
              ? `▸ new plan (revision ${event.data.revision}: ${truncate(event.data.reason, MAX_RESULT_CHARS)})`
              : '▸ plan';
          io.stderr.write(
            `${head}: ${d.steps.length} step${d.steps.length === 1 ? '' : 's'}, ` +
              `${writes}${d.approval === 'none' ? '' : `, approval per ${d.approval}`}\n`,
          );
          for (const step of d.steps) {
            const line =
              step.kind === 'tool'
                ? `  ${step.index + 1}. ` +
                  `${step.name ?? ''}(${truncate(JSON.stringify(step.arguments ?? {}), MAX_ARGS_CHARS)}) ` +
                  `${step.effect ?? ''}${DECISION_NOTES[step.decision ?? ''] ?? ''}`
                : `  ${step.index + 1}. ${truncate(step.text ?? '', MAX_RESULT_CHARS)}`;
            io.stderr.write(`${dim(line)}\n`);
          }
          break;
        }
        case 'reflection':
          closeLine();
          io.stderr.write(
            `${yellow(
              `↺ reflection after ${event.data.trigger.replace('_', ' ')}: ` +
                `${event.data.verdict} — ${truncate(event.data.reason, MAX_RESULT_CHARS)}`,
            )}\n`,
          );
          break;
        case 'intent_routed':
          // The reason starts with what the router did (auto.ts), then why.
          io.stderr.write(`${dim(`↳ ${truncate(event.data.reason, MAX_RESULT_CHARS)}`)}\n`);
          break;
        case 'guard_tripped': {
          closeLine();
          const what =
            event.data.action === 'warn'
              ? 'the model was told'
              : event.data.action === 'reflect'
                ? 'reflecting first'
                : event.data.action === 'replan'
                  ? 'planning again'
                  : event.data.action === 'degrade'
                    ? 'answering from what is known'
                    : 'stopping';
          io.stderr.write(
            `${yellow(`⚠ guard ${event.data.code} (${event.data.value} / ${event.data.limit}): ${what}`)}\n`,
          );
          break;
        }
        case 'todo_updated': {
          const done = event.data.todos.filter((t) => t.status === 'completed').length;
          io.stderr.write(
            `${dim(
              `☑ todos ${done}/${event.data.todos.length} ` +
                `done${event.data.fromThread === true ? ' (from the thread)' : ''}`,
            )}\n`,
          );
          break;
        }
        case 'reminder_injected':
          io.stderr.write(`${dim(`  reminded the model: ${event.data.text}`)}\n`);
          break;
        case 'history_trimmed':
          io.stderr.write(
            `${dim(
              `  thread history trimmed to ${event.data.tokensAfter} of ${event.data.tokensBefore} ` +
                `tokens (${event.data.shortened} outputs shortened, ${event.data.dropped} messages dropped)`,
            )}\n`,
          );
          break;
        case 'tool_mode_changed':
          closeLine();
          io.stderr.write(
            `${yellow(
              `⚠ ${event.data.model} switched to ${event.data.to} ` +
                `tool mode for the rest of the run: ${event.data.reason}`,
            )}\n`,
          );
          break;
        case 'upstream_request':
          closeLine();
          io.stderr.write(
            `${dim(
              `↔ ${event.data.server} asked the client (${event.data.method}, ${event.data.summary}): ` +
                `${event.data.outcome}${event.data.reason === undefined ? '' : ` (${event.data.reason})`}`,
            )}\n`,
          );
          break;
        case 'request_refused': {
          closeLine();
          const reason = truncate(event.data.reason, MAX_RESULT_CHARS);
          io.stderr.write(`${yellow(`⚠ ${event.data.method} refused (${event.data.code}): ${reason}`)}\n`);
          break;
        }
        case 'upstream_log': {
          closeLine();
          const { server, level, logger, data, dropped } = event.data;
          // An upstream server's text: on one line, without the control characters a terminal would act on.
          const text = printable(typeof data === 'string' ? data : JSON.stringify(data));
          const skipped = dropped === undefined ? '' : ` (${dropped} more not recorded)`;
          const named = logger === undefined ? '' : ` ${printable(logger)}`;
          const from = `${printable(server)} log [${printable(level)}]${named}`;
          io.stderr.write(`${dim(`  ${from}: ${truncate(text, MAX_RESULT_CHARS)}${skipped}`)}\n`);
          break;
        }
        case 'tool_changed':
          closeLine();
          io.stderr.write(
            `${yellow(
              `⚠ ${event.data.name} changed on ${event.data.server} since ` +
                `it was pinned: hidden until accepted (toolgate tools --diff)`,
            )}\n`,
          );
          break;
        case 'run_status':
          if (event.data.to === 'escalated') {
            closeLine();
            io.stderr.write(`${yellow('⏸ the run asks a person for help')}\n`);
          }
          break;
        case 'client_tool_calls':
          closeLine();
          for (const call of event.data.calls) {
            io.stderr.write(`${dim(`→ handed back to the caller: ${call.name} ${JSON.stringify(call.arguments)}`)}\n`);
          }
          break;
        case 'run_completed':
          // The answer did not come as the model's text (a return-direct tool, a plan's final answer): it is the
          // answer, on stdout.
          if (shownAnswer?.trim() !== event.data.output.trim() && event.data.output !== '') {
            closeLine();
            io.stdout.write(event.data.output.endsWith('\n') ? event.data.output : `${event.data.output}\n`);
          }
          break;
        case 'gate_decision': {
          const { toolCallId } = event.data;
          names.set(toolCallId, event.data.name);
          if (shown.has(toolCallId)) break;
          shown.add(toolCallId);
          gateLines.set(toolCallId, gateDecisionLines(event.data).map(dim));
          break;
        }
        case 'tool_call':
          closeLine();
          io.stderr.write(
            `${dim(`→ ${event.data.name}(${truncate(JSON.stringify(event.data.arguments), MAX_ARGS_CHARS)})`)}\n`,
          );
          flush(event.data.toolCallId);
          break;
        case 'approval_required':
          closeLine();
          names.set(event.data.toolCallId, event.data.name);
          io.stderr.write(
            `${yellow(
              event.data.kind === 'plan'
                ? '⏸ the plan waits for approval ' + '(one decision for all its steps)'
                : `⏸ ${event.data.name} ` + `(${event.data.effect}) waits for approval: ${approvalWhy(event.data)}`,
            )}\n`,
          );
          flush(event.data.toolCallId);
          break;
        case 'approval_notified':
        case 'approval_timed_out': {
          const name = names.get(event.data.toolCallId) ?? event.data.toolCallId;
          const text = event.type === 'approval_notified' ? notifiedNote(event.data) : timedOutNote(event.data);
          io.stderr.write(`${dim(`  ${name}: ${text}`)}\n`);
          break;
        }
        case 'input_received': {
          const input = event.data.input;
          if (input.type !== 'approval') break;
          const name = names.get(input.toolCallId) ?? input.toolCallId;
          const reason = input.reason === undefined ? '' : `: ${input.reason}`;
          io.stderr.write(
            `${dim(
              `  decision on ${name}: ` +
                `${input.decision}${decisionSource(input.source)}` +
                `${input.userId === undefined ? '' : ` (by ${input.userId})`}${reason}`,
            )}\n`,
          );
          break;
        }
        case 'tool_result': {
          closeLine();
          if (event.data.dryRun === true) {
            io.stderr.write(
              `${yellow(
                `⊘ dry run: ${event.data.name} would be called with ` +
                  `${truncate(dryRunArguments(event.data), MAX_ARGS_CHARS)}; nothing executed`,
              )}\n`,
            );
          }
          flush(event.data.toolCallId);
          // A dry run's result text repeats the arguments the ⊘ line just showed.
          const text =
            event.data.dryRun === true
              ? 'DRY RUN — the model is told the call was validated and would have run'
              : resultText(event.data.content, event.data.structuredContent);
          const line = event.data.ok
            ? dim(`← ${event.data.name} ok ${event.data.latencyMs} ms: ${truncate(text, MAX_RESULT_CHARS)}`)
            : red(
                `← ${event.data.name} ${event.data.error?.code ?? 'error'}: ` +
                  `${truncate(event.data.error?.message ?? text, MAX_RESULT_CHARS)}`,
              );
          io.stderr.write(`${line}\n`);
          break;
        }
        case 'run_failed':
          closeLine();
          io.stderr.write(`${red(`✗ run failed (${event.data.error.code}): ${event.data.error.message}`)}\n`);
          break;
        case 'run_cancelled':
          closeLine();
          io.stderr.write(`${red('✗ run cancelled')}\n`);
          break;
        default:
          break;
      }
    },
    end(run) {
      closeLine();
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      const mark = run.status === 'completed' ? green('✓') : red('✗');
      io.stderr.write(
        `${mark} ${run.status} · ${run.steps} step${run.steps === 1 ? '' : 's'} ` +
          `· ${formatTokens(run.usage)} · ${seconds} s · ${run.id}\n`,
      );
    },
  };
}

/** The arguments a dry run validated, as the result records them (already redacted). */
function dryRunArguments(data: RunEventDataMap['tool_result']): string {
  const structured = data.structuredContent;
  if (isJsonObject(structured) && structured['arguments'] !== undefined) return JSON.stringify(structured['arguments']);
  return resultText(data.content, undefined);
}

function resultText(content: readonly { type: string; text?: string }[], structured: JsonValue | undefined): string {
  const text = content
    .map((c) => (c.type === 'text' ? (c.text ?? '') : `[${c.type}]`))
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim();
  return text !== '' ? text : structured === undefined ? '' : JSON.stringify(structured);
}

/** " via chat (desk) by U123": where a decision came from and who the bot said made it; "" for the runs API. */
function decisionSource(source: DecisionSource | undefined): string {
  const note = sourceNote(source);
  if (note === '') return '';
  return ` ${note}${source?.actor === undefined ? '' : ` by ${source.actor}`}`;
}

/** `text` with every control character (line breaks and escape sequences included) turned into a space. */
function printable(text: string): string {
  let out = '';
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    out += code < 0x20 || (code >= 0x7f && code <= 0x9f) ? ' ' : char;
  }
  return out;
}
