import { setTimeout as delay } from 'node:timers/promises';
import { ToolgateError } from '../../core/errors.ts';
import type { GenerateOptions, ModelAdapter, ModelRequest, ModelResponse } from '../../core/ports/model-adapter.ts';
import type { RawToolCall } from '../../core/tools.ts';
import type { Usage } from '../../core/usage.ts';
import type { ScriptedScript, ScriptedTurn } from './script-schema.ts';

export type { ScriptedScript } from './script-schema.ts';

export const DEFAULT_SCRIPTED_ID = 'scripted:script';

export interface ScriptedAdapterOptions {
  script: ScriptedScript;
  id?: string;
}

/**
 * A model that answers from a script. The turn is chosen by how many model
 * calls the conversation had before (the request's callIndex, which counts a
 * strategy's side calls too; without it, the assistant messages it holds), so
 * the adapter keeps no state: a resumed or replayed run gets the same answer
 * at the same point.
 */
export function createScriptedAdapter(options: ScriptedAdapterOptions): ModelAdapter {
  const turns = options.script.turns;
  return {
    id: options.id ?? DEFAULT_SCRIPTED_ID,
    async generate(request: ModelRequest, generate: GenerateOptions = {}): Promise<ModelResponse> {
      const { signal, onTextDelta } = generate;
      throwIfAborted(signal);
      const index = request.callIndex ?? request.messages.filter((m) => m.role === 'assistant').length;
      const turn = turns[index];
      if (turn === undefined) {
        throw new ToolgateError(
          'model_error',
          `scripted model has no turn ${index + 1} (script has ${turns.length} turn${turns.length === 1 ? '' : 's'}; ` +
            `the conversation already had ${index} model call${index === 1 ? '' : 's'})`,
          { details: { turn: index + 1, turns: turns.length } },
        );
      }
      if (turn.delayMs !== undefined && turn.delayMs > 0) await pause(turn.delayMs, signal);
      const text = turn.text ?? '';
      if (request.stream && onTextDelta !== undefined) {
        for (const piece of splitWords(text)) {
          // A macrotask between pieces lets a cancel land mid-stream, as with a real model.
          await pause(0, signal);
          onTextDelta(piece);
        }
      }
      throwIfAborted(signal);
      // After its text, if it has some: a stream that broke midway.
      if (turn.error !== undefined) {
        throw new ToolgateError(turn.error.code, `scripted model (turn ${index + 1}): ${turn.error.message}`, {
          details: { turn: index + 1, scripted: true },
        });
      }
      const toolCalls: RawToolCall[] = (turn.toolCalls ?? []).map((call, i) => ({
        // Deterministic ids keep replays of the same script byte-identical.
        id: call.id ?? `call_s${index + 1}_${i + 1}`,
        name: call.name,
        arguments: call.arguments,
      }));
      return {
        text,
        toolCalls,
        finishReason: turn.finishReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop'),
        // A turn without usage answers without it, as a server that does not count would: toolgate estimates it
        // (estimate-usage.ts).
        ...(turn.usage === undefined ? {} : { usage: usageOf(turn.usage) }),
        ...(turn.reasoning === undefined || turn.reasoning === '' ? {} : { reasoning: turn.reasoning }),
      };
    },
  };
}

/** Splits after each run of whitespace; the pieces concatenate back to `text` exactly. */
export function splitWords(text: string): string[] {
  if (text === '') return [];
  return text.split(/(?<=\s)(?=\S)/);
}

function usageOf(usage: NonNullable<ScriptedTurn['usage']>): Usage {
  const { promptTokens, completionTokens } = usage;
  return { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens };
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted === true)
    throw new ToolgateError('cancelled', 'scripted model request was cancelled', { cause: signal.reason });
}

async function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  try {
    await delay(ms, undefined, signal === undefined ? {} : { signal });
  } catch (error) {
    if (signal?.aborted === true)
      throw new ToolgateError('cancelled', 'scripted model request was cancelled', { cause: signal.reason });
    throw error;
  }
}
