import { ToolgateError, isJsonObject } from '../core/index.ts';
import { unknownKeyMessage } from '../config/unknown-key-message.ts';
import { checkPolicyConditions } from '../gate/index.ts';
import type { CreateToolgateOptions } from './toolgate-options.ts';
import { sortToolEntries } from './sort-tool-entries.ts';

const OPTION_KEYS: readonly (keyof CreateToolgateOptions)[] = [
  'model',
  'models',
  'providers',
  'tools',
  'store',
  'policy',
  'hooks',
  'systemPrompt',
  'maxSteps',
  'toolMode',
  'constrain',
  'parseRetries',
  'textToolCalls',
  'stream',
  'toolTimeoutMs',
  'maxResultBytes',
  'strategy',
  'guard',
  'prices',
  'plan',
  'todo',
  'threads',
  'router',
  'stats',
  'rollout',
  'retention',
  'parsing',
  'leaseMs',
  'cwd',
  'owner',
  'toolRetry',
  'onToolHealth',
  'onServerStderr',
  'onWarning',
];

/**
 * Checks createToolgate's options with the config file's own schema, so a
 * library user gets the same rules and messages as a toolgate.yaml — with
 * paths named as in the options (`policy.tools…`, `tools[2].args`).
 * JavaScript callers get these for every mistake TypeScript would have caught.
 */
export async function checkToolgateOptions(options: CreateToolgateOptions): Promise<void> {
  // As typed; the checks below are for what JavaScript callers really pass.
  const typed: CreateToolgateOptions = options;
  if (!isJsonObject(options))
    throw new ToolgateError(
      'usage',
      'createToolgate takes one options object, e.g. createToolgate({ model: "openai:gpt-4o-mini", tools: [myTool] })',
    );
  const problems: string[] = [];
  const known = new Set<string>(OPTION_KEYS);
  for (const key of Object.keys(options)) {
    if (!known.has(key)) problems.push(`${key}: ${unknownKeyMessage(key, OPTION_KEYS)}`);
  }
  if (options.tools !== undefined && !Array.isArray(options.tools))
    problems.push('tools: must be a list of MCP servers, defineTool() results or ToolSources');
  if (options.store !== undefined && typeof options.store !== 'string' && !isStore(options.store))
    problems.push('store: must be "memory:", "sqlite:<file>" or a RunStore');
  const entries = Array.isArray(typed.tools) ? typed.tools : [];
  const { servers } = sortToolEntries(entries);
  const serverIndex = new Map<string, number>();
  entries.forEach((entry, index) => {
    if (isJsonObject(entry) && typeof entry['name'] === 'string') serverIndex.set(entry['name'], index);
  });
  const policy = isJsonObject(options.policy) ? options.policy : {};
  if (options.policy !== undefined && !isJsonObject(options.policy))
    problems.push('policy: must be an object { tools?, tenants?, redact? }');
  for (const key of Object.keys(policy))
    if (!['tools', 'tenants', 'redact'].includes(key))
      problems.push(`policy.${key}: ${unknownKeyMessage(key, ['tools', 'tenants', 'redact'])}`);
  const config = defined({
    model: typeof options.model === 'string' ? options.model : undefined,
    models: options.models,
    providers: options.providers,
    servers,
    maxSteps: options.maxSteps,
    systemPrompt: options.systemPrompt,
    toolTimeoutMs: options.toolTimeoutMs,
    maxResultBytes: options.maxResultBytes,
    stream: options.stream,
    toolMode: options.toolMode,
    constrain: options.constrain,
    parseRetries: options.parseRetries,
    textToolCalls: options.textToolCalls,
    strategy: options.strategy,
    guard: options.guard,
    prices: options.prices,
    plan: options.plan,
    todo: options.todo,
    threads: options.threads,
    router: options.router,
    stats: options.stats,
    rollout: options.rollout,
    retention: options.retention,
    parsing: options.parsing,
    tools: policy['tools'],
    tenants: policy['tenants'],
    redact: policy['redact'],
    server: options.leaseMs === undefined ? undefined : { leaseMs: options.leaseMs },
  });
  // The schema (zod) loads only here: the CLI, whose settings are checked already, never pays for it.
  const { configSchema } = await import('../config/config-schema.ts');
  const { issueMessage, knownKeysAt, MAX_REPORTED_CONFIG_PROBLEMS } = await import('../config/format-config-issues.ts');
  const result = configSchema.safeParse(config);
  if (!result.success) {
    for (const issue of result.error.issues) {
      const where = (path: readonly PropertyKey[]): string => optionPath(path, serverIndex);
      if (issue.code === 'unrecognized_keys') {
        const known = knownKeysAt(configSchema, issue.path) ?? [];
        for (const key of issue.keys) problems.push(`${where([...issue.path, key])}: ${unknownKeyMessage(key, known)}`);
      } else problems.push(`${where(issue.path)}: ${issueMessage(issue)}`);
    }
  } else {
    // Conditions whose shape is right: their expressions and schemas compiled now, named as the options name them.
    problems.push(...checkPolicyConditions({ tools: result.data.tools ?? {} }).map((p) => `policy.${p}`));
  }
  if (problems.length === 0) return;
  const shown = problems.slice(0, MAX_REPORTED_CONFIG_PROBLEMS).map((line) => `  - ${line}`);
  if (problems.length > shown.length) shown.push(`  … and ${problems.length - shown.length} more`);
  throw new ToolgateError(
    'config_invalid',
    `createToolgate: invalid options:\n${shown.join('\n')}\nThe options are described in docs/library.md.`,
    { details: { problems } },
  );
}

/** A config-schema path as the options name it. */
function optionPath(path: readonly PropertyKey[], serverIndex: ReadonlyMap<string, number>): string {
  const [head, second, ...rest] = path.map(String);
  let parts: string[];
  if (head === 'servers' && second !== undefined) parts = [`tools[${serverIndex.get(second) ?? '?'}]`, ...rest];
  else if (head === 'tools' || head === 'tenants' || head === 'redact')
    parts = ['policy', head, ...(second === undefined ? [] : [second]), ...rest];
  else if (head === 'server') parts = [...(second === undefined ? [] : [second]), ...rest];
  else parts = path.map(String);
  return parts.length === 0 ? '(options)' : parts.join('.');
}

function isStore(value: unknown): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    'append' in value &&
    typeof value.append === 'function' &&
    'readEvents' in value &&
    typeof value.readEvents === 'function'
  );
}

function defined(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined));
}
