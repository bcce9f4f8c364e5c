import { ToolgateError, didYouMean, type ToolPin, type ToolSpec } from '../core/index.ts';
import { describeToolChange, fingerprintDefinition, toolDefinition } from '../gateway/tool-pins.ts';
import type { Toolgate } from './toolgate.ts';

/** One upstream MCP tool against its pin (see docs/cli.md, `toolgate tools --diff`). */
export interface ToolPinStatus {
  /** The exposed name, as `toolgate tools` lists it. */
  name: string;
  server: string;
  tool: string;
  /** `pinned`: matches its pin; `changed`: differs from it (the gateway hides it); `new`: never pinned. */
  status: 'pinned' | 'changed' | 'new';
  /** What differs from the pin (`changed`); from acceptTools, what was accepted. */
  changes: string[];
  pinnedAt?: string;
  acceptedBy?: string;
}

interface Compared {
  spec: ToolSpec;
  status: ToolPinStatus;
  pin: ToolPin;
}

/**
 * The available MCP tools compared with the pins in the Toolgate's store, in
 * listing order. Creates no pin: a tool never seen is `new`.
 */
export async function toolPinReport(toolgate: Toolgate): Promise<ToolPinStatus[]> {
  return (await compareTools(toolgate)).map((c) => c.status);
}

/**
 * Accepts tools as they are now: their pins are replaced (or created) with
 * the current definition, `acceptedBy: by`. Names are exposed names as listed
 * or `server/tool`; `'all'` accepts every changed and new tool. An unknown name
 * is a usage error listing the known ones, and nothing is accepted then.
 * Resolves with each accepted tool, `changes` saying what the accept took in.
 */
export async function acceptTools(
  toolgate: Toolgate,
  names: readonly string[] | 'all',
  by: string,
): Promise<ToolPinStatus[]> {
  const compared = await compareTools(toolgate);
  const chosen = names === 'all' ? compared.filter((c) => c.status.status !== 'pinned') : pick(compared, names);
  const pinnedAt = new Date().toISOString();
  const accepted: ToolPinStatus[] = [];
  for (const { status, pin } of chosen) {
    await toolgate.store.replaceToolPin({ ...pin, pinnedAt, acceptedBy: by });
    const changes = status.status === 'new' ? ['first pin'] : status.changes;
    accepted.push({ ...status, status: 'pinned', changes, pinnedAt, acceptedBy: by });
  }
  return accepted;
}

async function compareTools(toolgate: Toolgate): Promise<Compared[]> {
  const known = await toolgate.tools.knownTools();
  const pins = new Map((await toolgate.store.listToolPins()).map((pin) => [`${pin.server}\u0000${pin.tool}`, pin]));
  return known
    .filter(({ spec, available }) => available && spec.origin.kind === 'mcp')
    .map(({ spec }) => {
      const { server, tool } = spec.origin;
      const definition = toolDefinition(spec);
      const fingerprint = fingerprintDefinition(definition);
      const current: ToolPin = { server, tool, fingerprint, definition, pinnedAt: '', acceptedBy: '' };
      const pin = pins.get(`${server}\u0000${tool}`);
      const base = { name: spec.name, server, tool };
      if (pin === undefined) return { spec, pin: current, status: { ...base, status: 'new', changes: [] } };
      const when = { pinnedAt: pin.pinnedAt, acceptedBy: pin.acceptedBy };
      if (pin.fingerprint === fingerprint)
        return { spec, pin: current, status: { ...base, status: 'pinned', changes: [], ...when } };
      const changes = describeToolChange(pin.definition, definition);
      return {
        spec,
        pin: current,
        status: {
          ...base,
          status: 'changed',
          changes: changes.length > 0 ? changes : ['fingerprint changed'],
          ...when,
        },
      };
    });
}

function pick(compared: readonly Compared[], names: readonly string[]): Compared[] {
  const chosen: Compared[] = [];
  const unknown: string[] = [];
  for (const name of names) {
    const match =
      compared.find((c) => c.status.name === name) ??
      compared.find((c) => `${c.status.server}/${c.status.tool}` === name);
    if (match === undefined) unknown.push(name);
    else if (!chosen.includes(match)) chosen.push(match);
  }
  if (unknown.length > 0) {
    const known = compared.map((c) => c.status.name);
    const [first] = unknown;
    const hint = first === undefined || unknown.length > 1 ? '' : didYouMean(first, known);
    const list =
      known.length === 0
        ? 'No MCP tool is available.'
        : `Known tools: ${known.join(', ')} (the name as listed, or server/tool; or all).`;
    throw new ToolgateError(
      'usage',
      `unknown tool ${unknown.map((n) => `"${n}"`).join(', ')}${hint === '' ? '.' : hint} ${list}`,
    );
  }
  return chosen;
}
