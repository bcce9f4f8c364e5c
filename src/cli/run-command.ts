import { STRATEGY_NAMES, type JsonObject, type Run } from '../core/index.ts';
import { resolve } from 'node:path';
import { TEMPLATE_FROM_SERVER } from '../app/call-formats.ts';
import { preparePrivateDbFile } from '../app/data-dir.ts';
import { openStore } from '../app/open-store.ts';
import type { Toolgate } from '../app/toolgate.ts';
import { optionalString, parseFlags, positiveInt, stringList, usageError, type CliIO } from './cli-io.ts';
import { prepareToolgate } from './open-toolgate.ts';
import { RUN_SPEC } from './specs/run-spec.ts';
import { createEventPrinter } from './event-printer.ts';
import { originMetadata } from './runs-origin.ts';
import { CLI_USER, settleRun } from './runs-settle.ts';
import { localStoreFor, resumeFlags } from './runs-where.ts';
import { reportToolPatterns } from './tool-pattern-report.ts';
import { isOneOf } from '../core/is-one-of.ts';

const TOOL_MODES = ['native', 'prompted', 'auto'] as const;

export async function runCommand(args: readonly string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseFlags(args, RUN_SPEC);
  const prompt = positionals.join(' ').trim();
  if (prompt === '')
    throw usageError(
      'toolgate run needs a prompt, e.g. toolgate run "What is the ' +
        'best ask?" --model openai:gpt-4o-mini --mcp "node server.js"',
    );
  const model = optionalString(values, 'model');
  const baseUrl = optionalString(values, 'base-url');
  const apiKey = optionalString(values, 'api-key');
  const maxSteps = positiveInt(optionalString(values, 'max-steps'), '--max-steps');
  const toolMode = optionalString(values, 'tool-mode');
  if (toolMode !== undefined && !isOneOf(TOOL_MODES, toolMode)) {
    throw usageError(`--tool-mode must be one of ${TOOL_MODES.join(', ')}, got "${toolMode}"`);
  }
  const strategy = optionalString(values, 'strategy');
  if (strategy !== undefined && !isOneOf(STRATEGY_NAMES, strategy)) {
    throw usageError(`--strategy must be one of ${STRATEGY_NAMES.join(', ')}, got "${strategy.slice(0, 40)}"`);
  }
  const context = parseContext(stringList(values, 'context'));
  const template = optionalString(values, 'chat-template');
  // A file is named from the working directory, as every flag's path is; `server` asks the model's server.
  const chatTemplate =
    template === undefined || template === TEMPLATE_FROM_SERVER ? template : resolve(io.cwd, template);
  const where = localStoreFor({ flag: optionalString(values, 'store'), env: io.env, cwd: io.cwd });
  const prepared = await prepareToolgate({
    values,
    flags: {
      ...(model === undefined ? {} : { model }),
      ...(baseUrl === undefined ? {} : { baseUrl }),
      ...(apiKey === undefined ? {} : { apiKey }),
      ...(maxSteps === undefined ? {} : { maxSteps }),
      ...(toolMode === undefined ? {} : { toolMode }),
      ...(values['constrain'] === true ? { constrain: true } : {}),
      ...(strategy === undefined ? {} : { strategy }),
      ...(values['todo'] === true ? { todo: true } : {}),
      ...(chatTemplate === undefined ? {} : { chatTemplate }),
    },
    io,
  });
  if (where.path !== undefined) preparePrivateDbFile(where.path);
  const toolgate = prepared.open(await openStore(where.spec));
  const user = optionalString(values, 'user');
  const tenant = optionalString(values, 'tenant');
  const resume = resumeFlags(where);
  try {
    // Once its servers have listed: a rule written for a tool that does not exist is said before the run starts.
    await reportToolPatterns({
      toolgate,
      settings: prepared.settings,
      strict: values['strict'] === true,
      warn: (text) => io.stderr.write(`⚠ ${text}\n`),
    });
    return await runAndPrint(
      toolgate,
      {
        input: prompt,
        json: values['json'] === true,
        dryRun: values['dry-run'] === true,
        yes: values['yes'] === true,
        context,
        ...(user === undefined ? {} : { userId: user }),
        ...(tenant === undefined ? {} : { tenantId: tenant }),
        // Only a recorded run can be continued, and only then is its origin worth keeping.
        ...(resume === undefined ? {} : { resume, metadata: originMetadata(prepared.origin) }),
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
  /** Recorded with the run (what reopens its tools later). */
  metadata?: JsonObject;
  /**
   * The flags that reach the run again with `toolgate runs` (`''` for the
   * default store); absent when the run is not recorded anywhere lasting.
   */
  resume?: string;
}

/** Runs one prompt, printing events as they happen and asking for approvals; returns the exit code. */
export async function runAndPrint(toolgate: Toolgate, request: RunAndPrintRequest, io: CliIO): Promise<number> {
  // Resolve the model first so a bad --model is a usage error (exit 2), not a failed run.
  await toolgate.model();
  const printer = createEventPrinter({ io, json: request.json });
  const drive = { onEvent: printer.print, ...(io.signal === undefined ? {} : { signal: io.signal }) };
  const run: Run = await toolgate.run({
    input: request.input,
    ...drive,
    ...(request.dryRun === true ? { dryRun: true } : {}),
    ...(request.userId === undefined ? {} : { userId: request.userId }),
    ...(request.tenantId === undefined ? {} : { tenantId: request.tenantId }),
    ...(request.context === undefined || Object.keys(request.context).length === 0 ? {} : { context: request.context }),
    ...(request.metadata === undefined ? {} : { metadata: request.metadata }),
  });
  return settleRun({
    run,
    decide: (input) => toolgate.submitInput(run.id, input, drive),
    cancel: (reason) => toolgate.cancel(run.id, reason, CLI_USER),
    printer,
    io,
    resume: request.resume,
    fromRun: true,
    ...(request.yes === true ? { yes: true } : {}),
  });
}

function parseContext(items: readonly string[]): JsonObject {
  const out: JsonObject = {};
  for (const item of items) {
    const eq = item.indexOf('=');
    if (eq <= 0) throw usageError(`--context takes key=value, got "${item}"`);
    out[item.slice(0, eq)] = item.slice(eq + 1);
  }
  return out;
}
