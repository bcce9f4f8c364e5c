import { createInterface } from 'node:readline/promises';
import { isJsonObject, type JsonObject, type PendingApproval, describeError } from '../core/index.ts';
import type { CliIO } from './cli-io.ts';

export type ApprovalAnswer =
  | { decision: 'approve' }
  | { decision: 'reject'; reason: string }
  | { decision: 'edit'; arguments: JsonObject }
  | { decision: 'mark_done'; result?: string };

/**
 * Asks on the terminal: approve, reject (with a reason for the model), edit the
 * arguments as JSON, or — for a call whose outcome is unknown — mark it done.
 */
export async function askApproval(io: CliIO, pending: PendingApproval): Promise<ApprovalAnswer> {
  if (io.stdin === undefined) throw new Error('no terminal to ask on');
  // Prompts go to stderr (stdout carries the answer); the terminal echoes what is typed.
  const rl = createInterface({ input: io.stdin, terminal: false });
  const lines = rl[Symbol.asyncIterator]();
  const ask = async (question: string): Promise<string> => {
    io.stderr.write(question);
    const next = await lines.next();
    if (next.done === true) throw new Error('the terminal closed before a decision was given');
    return next.value;
  };
  try {
    const unknown = pending.reason === 'outcome_unknown';
    const why = unknown
      ? ` (its outcome is ` +
        (`unknown` +
          `${pending.detail === undefined ? ': it was in flight when toolgate stopped' : `: ${pending.detail}`}; `) +
        `it may already have happened)`
      : pending.reason === 'untrusted_output'
        ? ` (it follows untrusted output of ${[...new Set((pending.provenance ?? []).map((p) => p.name))].join(', ')})`
        : '';
    io.stderr.write(`\n? ${pending.name} [${pending.effect}]${why}\n  ${JSON.stringify(pending.arguments)}\n`);
    const question = unknown
      ? '  execute again? [y]es / [n]o / [e]dit / [d]one (it did happen): '
      : '  approve? [y]es / [n]o / [e]dit: ';
    for (;;) {
      const answer = (await ask(question)).trim().toLowerCase();
      if (answer === 'y' || answer === 'yes') return { decision: 'approve' };
      if (unknown && (answer === 'd' || answer === 'done')) {
        const seen = (await ask('  what did you see (optional, told to the model): ')).trim();
        return seen === '' ? { decision: 'mark_done' } : { decision: 'mark_done', result: seen };
      }
      if (answer === 'n' || answer === 'no') {
        const reason = (await ask('  reason (told to the model): ')).trim();
        return { decision: 'reject', reason: reason === '' ? 'rejected by the operator' : reason };
      }
      if (answer === 'e' || answer === 'edit') {
        const text = await ask('  new arguments (JSON object): ');
        try {
          const value: unknown = JSON.parse(text);
          if (isJsonObject(value)) return { decision: 'edit', arguments: value };
          io.stderr.write('  that is not a JSON object\n');
        } catch (error) {
          io.stderr.write(`  not valid JSON: ${describeError(error)}\n`);
        }
      }
    }
  } finally {
    rl.close();
  }
}

/** One line typed at the terminal, trimmed (prompt on stderr). */
export async function askLine(io: CliIO, question: string): Promise<string> {
  if (io.stdin === undefined) throw new Error('no terminal to ask on');
  const rl = createInterface({ input: io.stdin, terminal: false });
  try {
    io.stderr.write(question);
    const next = await rl[Symbol.asyncIterator]().next();
    if (next.done === true) throw new Error('the terminal closed before an answer was given');
    return String(next.value).trim();
  } finally {
    rl.close();
  }
}
