import { ToolgateError, type Run, describeError } from '../../core/index.ts';
import type { Toolgate } from '../toolgate.ts';
import { checkRun, runCost } from './check-run.ts';
import type { EvalCase, EvalSuite } from './suite-schema.ts';

/** Approvals answered per run before the eval gives up on it (a model that keeps asking). */
const MAX_DECISIONS = 50;

export interface CaseResult {
  case: string;
  intent?: string;
  strategy: string;
  /** The model id the run used. */
  model: string;
  /**
   * The model as the report groups it: the matrix model's id, or `scripted` for a case's own scripted models (one
   * script per case).
   */
  modelLabel: string;
  /** 1, 2, … with `repeat`. */
  repeat: number;
  passed: boolean;
  failures: string[];
  /** The stored run (`toolgate runs show <runId>`); empty when no run could be created. */
  runId: string;
  status: string;
  costUsd: number;
  latencyMs: number;
  steps: number;
}

export interface RunEvalOptions {
  suite: EvalSuite;
  toolgate: Toolgate;
  /** Overrides the suite's `repeat`. */
  repeat?: number;
  /** The model when neither the matrix nor the case names one. */
  defaultModel?: string | undefined;
  /** Each result as it is known (progress). */
  onResult?: (result: CaseResult) => void;
  signal?: AbortSignal;
}

/** Every case × strategy × model, `repeat` times, one run after another; each run stored and checked. */
export async function runEval(options: RunEvalOptions): Promise<CaseResult[]> {
  const { suite, toolgate } = options;
  const repeat = options.repeat ?? suite.repeat;
  const models = suite.matrix.models ?? (options.defaultModel === undefined ? [undefined] : [options.defaultModel]);
  const results: CaseResult[] = [];
  for (const evalCase of suite.cases) {
    for (const strategy of suite.matrix.strategies) {
      for (const matrixModel of models) {
        const own = caseModel(evalCase, strategy);
        const model = own ?? matrixModel;
        if (model === undefined)
          throw new ToolgateError(
            'usage',
            `case ${evalCase.name}: no model; name one in matrix.models, ` +
              `in the case, or with --model / model: in the config`,
          );
        for (let n = 1; n <= repeat; n++) {
          if (options.signal?.aborted === true) return results;
          // A case's own scripted model is one script among many: grouped as `scripted`. A matrix model is its own
          // group.
          const modelLabel = own !== undefined && own.startsWith('scripted:') ? 'scripted' : model;
          const result = await runCase({
            toolgate,
            evalCase,
            strategy,
            model,
            modelLabel,
            repeat: n,
            approvals: suite.approvals,
            suiteName: suite.description ?? '',
          });
          results.push(result);
          options.onResult?.(result);
        }
      }
    }
  }
  return results;
}

function caseModel(evalCase: EvalCase, strategy: EvalSuite['matrix']['strategies'][number]): string | undefined {
  const model = evalCase.model;
  if (model === undefined || typeof model === 'string') return model;
  return model[strategy];
}

async function runCase(options: {
  toolgate: Toolgate;
  evalCase: EvalCase;
  strategy: string;
  model: string;
  modelLabel: string;
  repeat: number;
  approvals: 'approve' | 'reject';
  suiteName: string;
}): Promise<CaseResult> {
  const { toolgate, evalCase, strategy, model } = options;
  const base = {
    case: evalCase.name,
    ...(evalCase.intent === undefined ? {} : { intent: evalCase.intent }),
    strategy,
    model,
    modelLabel: options.modelLabel,
    repeat: options.repeat,
  };
  const started = performance.now();
  let run: Run;
  try {
    run = await toolgate.run({
      input: evalCase.input,
      model,
      strategy,
      ...(evalCase.tenant === undefined ? {} : { tenantId: evalCase.tenant }),
      ...(evalCase.user === undefined ? {} : { userId: evalCase.user }),
      ...(evalCase.context === undefined ? {} : { context: evalCase.context }),
      ...(evalCase.dryRun === true ? { dryRun: true } : {}),
      metadata: { eval: { suite: options.suiteName, case: evalCase.name, repeat: options.repeat } },
    });
    for (let i = 0; i < MAX_DECISIONS && run.status === 'waiting_approval' && run.pendingApproval !== undefined; i++) {
      const pending = run.pendingApproval;
      // A call that may already have happened is never sent again by an eval.
      const decision = options.approvals === 'approve' && pending.reason !== 'outcome_unknown' ? 'approve' : 'reject';
      run = await toolgate.submitInput(run.id, {
        type: 'approval',
        toolCallId: pending.toolCallId,
        decision,
        userId: 'eval',
        ...(decision === 'reject' ? { reason: 'rejected by the eval suite' } : {}),
      });
    }
  } catch (error) {
    const message = describeError(error);
    return {
      ...base,
      passed: false,
      failures: [`the run could not be made: ${message}`],
      runId: '',
      status: 'error',
      costUsd: 0,
      latencyMs: Math.round(performance.now() - started),
      steps: 0,
    };
  }
  const latencyMs = Math.round(performance.now() - started);
  const events = await toolgate.store.readEvents(run.id);
  const failures = checkRun(evalCase.expect, run, events);
  return {
    ...base,
    passed: failures.length === 0,
    failures,
    runId: run.id,
    status: run.status,
    costUsd: runCost(run),
    latencyMs,
    steps: run.steps,
  };
}
