import type { RawToolCall, RunSettings, StrategyName } from '../../core/index.ts';
import type { ApprovalDecision, ConversationState } from '../conversation-state.ts';
import type { CallOutcome } from '../execute-tool-call.ts';
import type { TurnOutcome } from '../finish-turn.ts';
import type { ModelTurnResult } from '../model-turn.ts';

/**
 * The one way from a strategy to a tool: a closure the engine builds around
 * executeToolCall (parse → validate → gate → execute → record). A strategy
 * never holds a tool source, so no strategy can skip the gate — an
 * architecture test keeps it so.
 */
export type GateFn = (call: RawToolCall, options: GateCallOptions) => Promise<CallOutcome>;

export interface GateCallOptions {
  step: number;
  approval?: ApprovalDecision | undefined;
  /** The model hit its token limit in the call's turn. */
  truncated?: boolean;
}

/** What the engine hands a strategy for one pass over a run. */
export interface StrategyContext {
  readonly runId: string;
  /** The run's conversation and position, kept equal to its log by the engine. */
  readonly state: Readonly<ConversationState>;
  readonly settings: Readonly<RunSettings>;
  /** One model step (parse feedback rounds included); its events are recorded. */
  modelTurn(): Promise<ModelTurnResult>;
  /** Runs the open turn's calls, each through the gate; may pause the run for a person. */
  finishTurn(): Promise<TurnOutcome>;
  /** The gate, for strategies that call tools themselves. */
  readonly gate: GateFn;
  /**
   * A safe point between steps: throws when the run must end (cancelled,
   * maxSteps, a model that keeps sending unusable calls); returns false when
   * it must pause without ending (shutdown, the lease was lost).
   */
  checkpoint(): boolean;
}

/** How a pass ended: the engine records `completed`; `waiting` and `paused` leave the run as the log says. */
export type StrategyOutcome = { kind: 'completed'; output: string } | { kind: 'waiting' } | { kind: 'paused' };

export interface Strategy {
  name: StrategyName;
  run(ctx: StrategyContext): Promise<StrategyOutcome>;
}
