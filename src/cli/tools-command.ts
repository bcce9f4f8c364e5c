import { isJsonObject, type JsonSchema } from '../core/index.ts';
import type { ClassifiedTool } from '../app/toolgate.ts';
import { EXIT, parseFlags, usageError, type CliIO } from './cli-io.ts';
import { prepareToolgate } from './open-toolgate.ts';
import { reportToolPatterns } from './tool-pattern-report.ts';
import { TOOLS_SPEC } from './specs/tools-spec.ts';

export async function toolsCommand(args: readonly string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseFlags(args, TOOLS_SPEC);
  if (positionals.length > 0) io.stderr.write(`toolgate tools: ignoring extra arguments: ${positionals.join(' ')}\n`);
  // Pins live in a store: that code (and the store's) loads only when asked for.
  if (values['diff'] === true || values['accept'] !== undefined)
    return (await import('./tool-pins-command.ts')).toolPinsCommand(values, io);
  for (const flag of ['store', 'by'])
    if (values[flag] !== undefined) throw usageError(`--${flag} goes with --diff or --accept (tool pins)`);
  const prepared = await prepareToolgate({ values, flags: {}, io });
  const toolgate = prepared.open();
  try {
    if (Object.keys(toolgate.settings.servers).length === 0) {
      io.stderr.write(
        'toolgate tools: no MCP servers configured; add --mcp "<command ' +
          'line>" or --mcp <url>, or a servers: section in toolgate.yaml\n',
      );
      return EXIT.usage;
    }
    const tenant = typeof values['tenant'] === 'string' ? values['tenant'] : undefined;
    // Every server is asked; one that cannot be reached is reported, not fatal to the listing.
    const tools = (await toolgate.listClassifiedTools(tenant)).filter((t) => t.available);
    const failed = toolgate.toolHealth().filter((h) => h.state !== 'up');
    if (values['json'] === true) io.stdout.write(`${JSON.stringify(tools, null, 2)}\n`);
    else io.stdout.write(formatTools(tools));
    for (const server of failed)
      io.stderr.write(`toolgate tools: could not reach "${server.name}": ${server.error ?? server.state}\n`);
    await reportToolPatterns({
      toolgate,
      settings: prepared.settings,
      strict: values['strict'] === true,
      warn: (text) => io.stderr.write(`toolgate tools: ${text}\n`),
    });
    if (failed.length > 0) {
      const reached = toolgate.toolHealth().length - failed.length;
      io.stderr.write(
        `toolgate tools: listed ${reached} of ${reached + failed.length} servers; ` +
          (`${failed.length === 1 ? 'the one above failed' : 'the ones above failed'} ` +
            `(run with --verbose to see their stderr)\n`),
      );
      return EXIT.failed;
    }
    return EXIT.ok;
  } finally {
    await toolgate.close();
  }
}

export function formatTools(tools: readonly ClassifiedTool[]): string {
  const byServer = new Map<string, ClassifiedTool[]>();
  for (const t of tools) byServer.set(t.origin.server, [...(byServer.get(t.origin.server) ?? []), t]);
  const lines: string[] = [];
  for (const [server, list] of byServer) {
    lines.push(`${server} (${list.length} tool${list.length === 1 ? '' : 's'})`);
    for (const t of list) {
      const renamed = t.name === t.origin.tool ? '' : ` (server name: ${t.origin.tool})`;
      const approval = t.approval === 'required' ? ', needs approval' : '';
      lines.push(`  ${t.name}${renamed}  ${t.effect.toUpperCase()} (${t.effectSource}${approval})  [${hints(t)}]`);
      const description = t.description.split('\n')[0]?.trim() ?? '';
      if (description !== '') lines.push(`      ${description}`);
      lines.push(`      args: ${signature(t.inputSchema)}`);
    }
    lines.push('');
  }
  return `${lines.join('\n')}${tools.length} tools\n`;
}

function hints(t: ClassifiedTool): string {
  const a = t.annotations ?? {};
  const out: string[] = [];
  if (a.readOnlyHint === true) out.push('read-only');
  else out.push(a.readOnlyHint === false ? 'writes' : 'writes (unannotated)');
  if (a.destructiveHint === true) out.push('destructive');
  if (a.idempotentHint === true) out.push('idempotent');
  if (a.openWorldHint === true) out.push('open-world');
  return out.join(', ');
}

/** `name: type, other?: type` from an object schema. */
export function signature(schema: JsonSchema): string {
  const props = isJsonObject(schema['properties']) ? schema['properties'] : {};
  const required = new Set(
    Array.isArray(schema['required']) ? schema['required'].filter((name) => typeof name === 'string') : [],
  );
  const parts = Object.entries(props).map(([name, s]) => `${name}${required.has(name) ? '' : '?'}: ${typeName(s)}`);
  return parts.length === 0 ? '(none)' : parts.join(', ');
}

function typeName(s: unknown): string {
  if (!isJsonObject(s)) return 'any';
  if (Array.isArray(s['enum'])) return s['enum'].map((v) => JSON.stringify(v)).join('|');
  const t = s['type'];
  if (Array.isArray(t)) return t.join('|');
  if (t === 'array') return `${typeName(s['items'] ?? {})}[]`;
  return typeof t === 'string' ? t : 'any';
}
