import { existsSync } from 'node:fs';
import { userInfo } from 'node:os';
import { preparePrivateDbFile } from '../app/data-dir.ts';
import { describeStore, openStore } from '../app/open-store.ts';
import { acceptTools, toolPinReport, type ToolPinStatus } from '../app/tool-pin-report.ts';
import { ToolgateError } from '../core/index.ts';
import { findConfigFile } from '../config/find-config-file.ts';
import { loadConfig } from '../config/load-config.ts';
import { EXIT, optionalString, stringList, usageError, type CliIO } from './cli-io.ts';
import { prepareToolgate } from './open-toolgate.ts';
import { pinStoreFor } from './pin-store.ts';

/** `--by` when it is not given and the OS has no user name to offer. */
export const DEFAULT_ACCEPTED_BY = 'operator';

/**
 * `toolgate tools --diff` and `--accept`: the available MCP tools against
 * their pins in the store the gateway uses. --diff exits 1 when a tool
 * changed (or a server could not be checked), so CI can gate on it.
 */
export async function toolPinsCommand(values: Record<string, unknown>, io: CliIO): Promise<number> {
  const accept = stringList(values, 'accept');
  const diff = values['diff'] === true;
  if (diff && accept.length > 0)
    throw usageError('--diff shows, --accept pins: give one of them (accept, then run --diff again)');
  if (values['tenant'] !== undefined)
    throw usageError('--tenant does not go with --diff or --accept: tools are pinned per server, for every tenant');
  if (values['by'] !== undefined && !(accept.length > 0))
    throw usageError('--by names who accepts: it goes with --accept');
  // Config errors come first, before any store is opened or created.
  const prepared = await prepareToolgate({ values, flags: {}, io });
  // Asked before the store is opened: a command that does nothing must not create it. (Nothing starts here.)
  const probe = prepared.open();
  const noServers = Object.keys(probe.settings.servers).length === 0;
  await probe.close();
  if (noServers) {
    io.stderr.write(
      'toolgate tools: no MCP servers configured; add --mcp "<command ' +
        'line>" or --mcp <url>, or a servers: section in toolgate.yaml\n',
    );
    return EXIT.usage;
  }
  const configFile = findConfigFile({ cwd: io.cwd, file: optionalString(values, 'config') });
  const configured =
    configFile === undefined
      ? undefined
      : loadConfig({ cwd: io.cwd, env: io.env, file: configFile }).config.server?.store;
  const where = pinStoreFor({ flag: optionalString(values, 'store'), configured, env: io.env, cwd: io.cwd });
  const missing = where.path !== undefined && !existsSync(where.path);
  if (missing && diff && !where.isDefault)
    throw usageError(`there is no store at ${where.path} (check --store or server.store; --accept creates it)`);
  // --diff never creates the default store: not there yet means nothing is pinned.
  if (where.path !== undefined && !diff) preparePrivateDbFile(where.path);
  const store = await openStore(missing && diff ? 'memory:' : where.spec, { cwd: io.cwd });
  const toolgate = prepared.open(store);
  try {
    const json = values['json'] === true;
    let changed = 0;
    if (diff) {
      const report = await toolPinReport(toolgate);
      changed = report.filter((s) => s.status === 'changed').length;
      io.stdout.write(
        json
          ? `${JSON.stringify(report, null, 2)}\n`
          : formatPinReport(report, `${describeStore(where.spec)}${missing ? ', not created yet' : ''}`),
      );
    } else {
      const names = accept.includes('all') ? 'all' : accept;
      const accepted = await acceptTools(toolgate, names, optionalString(values, 'by') ?? osUser()).catch(
        (error: unknown) => {
          const down = toolgate.toolHealth().filter((h) => h.state !== 'up');
          if (!(error instanceof ToolgateError) || down.length === 0) throw error;
          throw new ToolgateError(
            error.code,
            `${error.message} Not reachable now, so not listed: ${down.map((h) => `"${h.name}"`).join(', ')}.`,
          );
        },
      );
      io.stdout.write(json ? `${JSON.stringify(accepted, null, 2)}\n` : formatAccepted(accepted));
    }
    const failed = toolgate.toolHealth().filter((h) => h.state !== 'up');
    for (const server of failed)
      io.stderr.write(
        `toolgate tools: could not reach "${server.name}": ${server.error ?? server.state}; ` +
          `its tools were not ${diff ? 'checked' : 'accepted'}\n`,
      );
    return changed > 0 || failed.length > 0 ? EXIT.failed : EXIT.ok;
  } finally {
    await toolgate.close();
  }
}

/** Each changed tool with what changed, then the new ones, then one summary line. */
export function formatPinReport(report: readonly ToolPinStatus[], storeLabel: string): string {
  const changed = report.filter((s) => s.status === 'changed');
  const fresh = report.filter((s) => s.status === 'new');
  const lines: string[] = [];
  for (const s of changed) {
    lines.push(
      `CHANGED ${label(s)}, pinned ${s.pinnedAt ?? '?'} ` +
        `(${s.acceptedBy === 'first-seen' ? 'first seen' : `accepted by ${s.acceptedBy ?? '?'}`}):`,
    );
    for (const change of s.changes) lines.push(`    ${change}`);
  }
  for (const s of fresh) lines.push(`NEW     ${label(s)}: not pinned yet`);
  const matching = report.length - changed.length - fresh.length;
  if (changed.length === 0 && fresh.length === 0) {
    lines.push(`All ${report.length} tool${report.length === 1 ? '' : 's'} match their pins (${storeLabel}).`);
  } else {
    const parts = [
      `${changed.length} changed`,
      `${fresh.length} new`,
      `${matching} match${matching === 1 ? 'es' : ''} ${matching === 1 ? 'its pin' : 'their pins'}`,
    ];
    lines.push(`${report.length} tool${report.length === 1 ? '' : 's'}: ${parts.join(', ')} (${storeLabel}).`);
    if (changed.length > 0)
      lines.push(
        'A changed tool is hidden by the gateway until accepted: review the lines ' +
          'above, then toolgate tools --accept <name> (same --config / --mcp / --store).',
      );
    else
      lines.push(
        'New tools are pinned as they are the first time the ' +
          'gateway lists them, or now with toolgate tools --accept all.',
      );
  }
  return `${lines.join('\n')}\n`;
}

export function formatAccepted(accepted: readonly ToolPinStatus[]): string {
  if (accepted.length === 0) return 'Nothing to accept: every tool matches its pin.\n';
  const lines: string[] = [];
  for (const s of accepted) {
    lines.push(
      `accepted ${label(s)} as ${s.acceptedBy ?? '?'}${s.changes.length === 0 ? ' (it matched its pin)' : ':'}`,
    );
    for (const change of s.changes) lines.push(`    ${change}`);
  }
  lines.push(
    `${accepted.length} tool${accepted.length === 1 ? '' : 's'} ` +
      `pinned as ${accepted.length === 1 ? 'it is' : 'they are'} now.`,
  );
  return `${lines.join('\n')}\n`;
}

function label(s: ToolPinStatus): string {
  return s.name === s.tool ? `${s.name} (server ${s.server})` : `${s.name} (${s.server}/${s.tool})`;
}

/** Who accepts, when --by is not given: the OS user, which some containers do not have. */
function osUser(): string {
  try {
    const name = userInfo().username;
    return name === '' ? DEFAULT_ACCEPTED_BY : name;
  } catch {
    return DEFAULT_ACCEPTED_BY;
  }
}
