import type { JsonObject, Run } from '../core/index.ts';
import type { Toolgate } from '../app/toolgate.ts';
import { EXIT, optionalString, parseFlags, positiveInt, usageError, type CliIO } from './cli-io.ts';
import { openToolgate } from './open-toolgate.ts';
import { RUN_SPEC } from './specs/run-spec.ts';
import { createEventPrinter } from './event-printer.ts';
import { askApproval } from './ask-approval.ts';

const TOOL_MODES = ['native', 'prompted', 'auto'] as const;

export async function runCommand(args: readonly string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseFlags(args, RUN_SPEC);
  const prompt = positionals.join(' ').trim();
  if (prompt === '') throw usageError('toolgate run needs a prompt, e.g. toolgate run "What is the best ask?" --model openai:gpt-4o-mini --mcp "node server.js"');
  const model = optionalString(values, 'model');
  const baseUrl = optionalString(values, 'base-url');
  const apiKey = optionalString(values, 'api-key');
  const maxSteps = positiveInt(optionalString(values, 'max-steps'), '--max-steps');
  const toolMode = optionalString(values, 'tool-mode');
  if (toolMode !== undefined && !(TOOL_MODES as readonly string[]).includes(toolMode)) {
    throw usageError(`--tool-mode must be one of ${TOOL_MODES.join(', ')}, got "${toolMode}"`);
  }
  const toolgate = openToolgate(
    values,
    {
      ...(model === undefined ? {} : { model }),
      ...(baseUrl === undefined ? {} : { baseUrl }),
      ...(apiKey === undefined ? {} : { apiKey }),
      ...(maxSteps === undefined ? {} : { maxSteps }),
      ...(toolMode === undefined ? {} : { toolMode: toolMode as (typeof TOOL_MODES)[number] }),
      ...(values['constrain'] === true ? { constrain: true } : {}),
    },
    io,
  );
  const user = optionalString(values, 'user');
  const tenant = optionalString(values, 'tenant');
  try {
    return await runAndPrint(
      toolgate,
      {
        input: prompt,
        json: values['json'] === true,
        dryRun: values['dry-run'] === true,
        yes: values['yes'] === true,
        context: parseContext(values['context']),
        ...(user === undefined ? {} : { userId: user }),
        ...(tenant === undefined ? {} : { tenantId: tenant }),
      },
      io,
    );
  } finally {
    await toolgate.close();
  }
}

export interface RunAndPrintRequest {
  input: string;
  json: boolean;
  dryRun?: boolean;
  /** Approve every call that needs approval. */
  yes?: boolean;
  userId?: string;
  tenantId?: string;
  context?: JsonObject;
}

/** Runs one prompt, printing events as they happen and asking for approvals; returns the exit code. */
export async function runAndPrint(toolgate: Toolgate, request: RunAndPrintRequest, io: CliIO): Promise<number> {
  // Resolve the model first so a bad --model is a usage error (exit 2), not a failed run.
  await toolgate.model();
  const printer = createEventPrinter({ io, json: request.json });
  const drive = { onEvent: printer.print, ...(io.signal === undefined ? {} : { signal: io.signal }) };
  let run: Run = await toolgate.run({
    input: request.input,
    ...drive,
    ...(request.dryRun === true ? { dryRun: true } : {}),
    ...(request.userId === undefined ? {} : { userId: request.userId }),
    ...(request.tenantId === undefined ? {} : { tenantId: request.tenantId }),
    ...(request.context === undefined || Object.keys(request.context).length === 0 ? {} : { context: request.context }),
  });
  while (run.status === 'waiting_approval' && run.pendingApproval !== undefined) {
    const pending = run.pendingApproval;
    // --yes approves calls; it never repeats one that may already have happened.
    if (request.yes === true && pending.reason !== 'outcome_unknown') {
      io.stderr.write(`✓ approved ${pending.name} (--yes)\n`);
      run = await toolgate.submitInput(run.id, { type: 'approval', toolCallId: pending.toolCallId, decision: 'approve', userId: 'cli' }, drive);
      continue;
    }
    if (io.stdin === undefined || io.stdin.isTTY !== true) {
      printer.end(run);
      if (pending.reason === 'outcome_unknown') {
        io.stderr.write(
          `toolgate: ${pending.name} was sent but its outcome is unknown (${pending.detail ?? 'toolgate stopped while it was in flight'}); it may have happened.\n` +
            `  Check whether it happened, then decide on run ${run.id} with the runs API (approve to execute it again, reject, or mark_done).\n`,
        );
        return EXIT.waiting;
      }
      io.stderr.write(
        `toolgate: ${pending.name} (${pending.effect}) needs approval and there is no terminal to ask on.\n` +
          `  Approve every call with --yes, run in a terminal to decide each call, preview with --dry-run,\n` +
          `  or set approval: never for this tool in toolgate.yaml (tools: {"<server>/${pending.name}": {approval: never}}).\n`,
      );
      return EXIT.waiting;
    }
    const decision = await askApproval(io, pending);
    run = await toolgate.submitInput(run.id, { type: 'approval', toolCallId: pending.toolCallId, userId: 'cli', ...decision }, drive);
  }
  printer.end(run);
  return run.status === 'completed' ? EXIT.ok : EXIT.failed;
}

function parseContext(raw: unknown): JsonObject {
  const out: JsonObject = {};
  for (const item of Array.isArray(raw) ? (raw as string[]) : []) {
    const eq = item.indexOf('=');
    if (eq <= 0) throw usageError(`--context takes key=value, got "${item}"`);
    out[item.slice(0, eq)] = item.slice(eq + 1);
  }
  return out;
}
