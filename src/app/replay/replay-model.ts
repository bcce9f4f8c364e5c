import {
  ToolgateError,
  type GenerateOptions,
  type ModelAdapter,
  type ModelRequest,
  type ModelResponse,
  type RunEvent,
} from '../../core/index.ts';
import {
  recordedModelCalls,
  sameConversation,
  type RecordedAnswer,
  type RecordedModelCalls,
  type SidePurpose,
} from './recorded-turns.ts';

export interface ReplayModelOptions {
  /** The run's model id (recorded in the replay's run_started). */
  id: string;
  /** The original run's log. */
  events: readonly RunEvent[];
  /** Asked from the first divergence on (`--live-model`); without it the replay ends there, or where the turns end. */
  live?: ModelAdapter;
  /**
   * The system prompt the original was sent, when known (it is not in a run's log): a request with another one
   * diverges at once.
   */
  originalSystemPrompt?: string;
}

/**
 * How the error that ends a replay without a live model begins: the recorded turns ran out (or the strategy asked for
 * a side call the original did not make). `--live-model` asks the model from there instead.
 */
export const REPLAY_ENDED = 'replay ended, no recorded model answer';

const PROMPT_DIFFERS = "the system prompt is not the original's";

/** Where a replay stopped following the original: the replay's n-th model call (from 0), and why. */
export interface Divergence {
  call: number;
  reason: string;
}

/**
 * A model that answers with what the original run's model wrote, in order: each conversation turn (text, raw native
 * calls, reasoning, providerData, finish reason, usage, exactly as recorded), and each side call of a strategy from
 * the recorded side calls of the same purpose. The run re-parses them with the current parser. It notices the first
 * request whose conversation is not the one the original answered (another system prompt, strategy or tool result):
 * with a live model it asks that model from there on; without, it goes on with the recorded turns and ends the replay
 * (the run fails with REPLAY_ENDED) when they run out.
 */
export class ReplayModel implements ModelAdapter {
  readonly id: string;
  readonly #recorded: RecordedModelCalls;
  readonly #live: ModelAdapter | undefined;
  readonly #systemPrompt: string | undefined;
  #nextTurn = 0;
  readonly #nextSide = new Map<SidePurpose, number>();
  #calls = 0;
  #divergence: Divergence | undefined;
  #liveFrom: number | undefined;

  constructor(options: ReplayModelOptions) {
    this.id = options.id;
    this.#recorded = recordedModelCalls(options.events);
    this.#live = options.live;
    this.#systemPrompt = options.originalSystemPrompt;
  }

  /** The first divergence, if there was one. */
  get divergence(): Divergence | undefined {
    return this.#divergence;
  }

  /** Whether the live model answered (from the divergence on). */
  get answeredLive(): boolean {
    return this.#liveFrom !== undefined;
  }

  async generate(request: ModelRequest, options: GenerateOptions = {}): Promise<ModelResponse> {
    const call = this.#calls++;
    if (this.#liveFrom !== undefined && this.#live !== undefined) return this.#live.generate(request, options);
    const next = this.#next(request);
    if (next.diverged !== undefined) this.#divergence ??= { call, reason: next.diverged };
    if (this.#live !== undefined && (next.diverged !== undefined || next.answer === undefined)) {
      this.#liveFrom = call;
      return this.#live.generate(request, options);
    }
    if (next.answer === undefined) {
      // The run fails with this reason in its log (a `cancelled` error would record only "the run was cancelled").
      throw new ToolgateError('model_error', `${REPLAY_ENDED}: ${next.diverged ?? 'no recorded model turn is left'}`);
    }
    return respond(next.answer, request, options);
  }

  /** The recorded answer for this request, and why it is not the original's conversation any more (if so). */
  #next(request: ModelRequest): { answer?: RecordedAnswer; diverged?: string } {
    const purpose = request.purpose;
    if (purpose !== undefined) {
      const index = this.#nextSide.get(purpose) ?? 0;
      const answer = this.#recorded.side.get(purpose)?.[index];
      if (answer === undefined) return { diverged: `the original made no more ${purpose} calls` };
      this.#nextSide.set(purpose, index + 1);
      return { answer };
    }
    const turn = this.#recorded.turns[this.#nextTurn];
    if (turn === undefined) return { diverged: 'the original has no more model turns' };
    this.#nextTurn++;
    const prompt = this.#promptDiffers(request);
    if (prompt !== undefined) return { answer: turn.answer, diverged: prompt };
    if (!sameConversation(request, turn.before))
      return {
        answer: turn.answer,
        diverged:
          `the conversation before step ${turn.answer.step} is not the original's ` + '(a tool result or turn differs)',
      };
    return { answer: turn.answer };
  }

  #promptDiffers(request: ModelRequest): string | undefined {
    const known = this.#systemPrompt;
    if (known === undefined) return undefined;
    const first = request.messages[0];
    const sent = first?.role === 'system' ? first.content : undefined;
    if (sent === undefined) return known === '' ? undefined : PROMPT_DIFFERS;
    if (sent === known || sent.startsWith(`${known}\n\n`)) return undefined;
    // Prompted mode: without a prompt of its own, the system message holds only the tool descriptions.
    if (known === '' && request.tools.length === 0) return undefined;
    return PROMPT_DIFFERS;
  }
}

/** The recorded answer, as the model gave it: streamed text goes to onTextDelta as one piece. */
function respond(answer: RecordedAnswer, request: ModelRequest, options: GenerateOptions): ModelResponse {
  if (request.stream && answer.text !== '') options.onTextDelta?.(answer.text);
  return {
    text: answer.text,
    toolCalls: answer.toolCalls.map((c) => ({ ...c })),
    finishReason: answer.finishReason,
    ...(answer.reasoning === undefined ? {} : { reasoning: answer.reasoning }),
    ...(answer.providerData === undefined ? {} : { providerData: structuredClone(answer.providerData) }),
    ...(answer.usage === undefined ? {} : { usage: { ...answer.usage } }),
  };
}
