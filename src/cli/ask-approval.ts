import { createInterface } from 'node:readline/promises';
import { isJsonObject, type JsonObject, type PendingApproval } from '../core/index.ts';
import type { CliIO } from './cli-io.ts';

export type ApprovalAnswer =
  | { decision: 'approve' }
  | { decision: 'reject'; reason: string }
  | { decision: 'edit'; arguments: JsonObject };

/** Asks on the terminal: approve, reject (with a reason for the model), or edit the arguments as JSON. */
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
    const why = pending.reason === 'outcome_unknown' ? ' (it was in flight when toolgate stopped: it may already have happened)' : '';
    io.stderr.write(`\n? ${pending.name} [${pending.effect}]${why}\n  ${JSON.stringify(pending.arguments)}\n`);
    for (;;) {
      const answer = (await ask('  approve? [y]es / [n]o / [e]dit: ')).trim().toLowerCase();
      if (answer === 'y' || answer === 'yes') return { decision: 'approve' };
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
          io.stderr.write(`  not valid JSON: ${error instanceof Error ? error.message : String(error)}\n`);
        }
      }
    }
  } finally {
    rl.close();
  }
}
