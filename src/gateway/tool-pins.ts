import { createHash } from 'node:crypto';
import {
  canonicalJson,
  isJsonObject,
  parseJson,
  type JsonObject,
  type RunStore,
  type ToolPin,
  type ToolSpec,
} from '../core/index.ts';
import { describeToolChange } from './describe-tool-change.ts';

export { describeToolChange };

/** `acceptedBy` of a pin made automatically, the first time a tool was seen. */
export const FIRST_SEEN = 'first-seen';

/**
 * What is pinned of an upstream tool: everything a model reads or a policy
 * acts on. `name` is the server's own name for it (origin.tool), not the
 * exposed one, so renaming the prefix does not count as a change. Absent
 * optional fields are left out; the result is plain JSON (a copy).
 */
export function toolDefinition(spec: ToolSpec): JsonObject {
  const definition = {
    name: spec.origin.tool,
    ...(spec.title === undefined ? {} : { title: spec.title }),
    description: spec.description,
    inputSchema: spec.inputSchema,
    ...(spec.outputSchema === undefined ? {} : { outputSchema: spec.outputSchema }),
    ...(spec.annotations === undefined ? {} : { annotations: spec.annotations }),
  };
  const copy = parseJson(JSON.stringify(definition));
  // Always an object: it is one written out and read back.
  return isJsonObject(copy) ? copy : {};
}

/** sha256 (hex) of the definition's canonical JSON: key order does not matter, array order does. */
export function fingerprintDefinition(definition: JsonObject): string {
  return createHash('sha256').update(canonicalJson(definition), 'utf8').digest('hex');
}

export interface PinCheck {
  /**
   * Tools that may be offered: pinned and unchanged, just pinned on first sight, or not from an MCP server (origin.kind
   * !== 'mcp' is never pinned).
   */
  visible: ToolSpec[];
  /** MCP tools whose definition differs from their pin: hidden until accepted. */
  changed: { tool: ToolSpec; pin: ToolPin; fingerprint: string; changes: string[] }[];
  /** Pins created by this check (first sight). */
  pinned: ToolPin[];
}

type Verdict =
  | { kind: 'visible' }
  | { kind: 'pinned'; pin: ToolPin }
  | { kind: 'changed'; pin: ToolPin; fingerprint: string; changes: string[] };

/**
 * Sorts a tool listing by its pins: unchanged and never-seen tools stay
 * visible (the latter pinned now, `acceptedBy: "first-seen"`), changed ones
 * are held back with what changed. Tools are keyed by (origin.server,
 * origin.tool); `visible` and `changed` keep the given ToolSpec objects in
 * input order. A tool another process pinned first, with another definition,
 * counts as changed: every process hides what the first pin does not match.
 */
export async function checkToolPins(
  store: Pick<RunStore, 'listToolPins' | 'pinToolIfNew'>,
  tools: readonly ToolSpec[],
  now: () => string,
): Promise<PinCheck> {
  const pins = new Map((await store.listToolPins()).map((pin) => [pinKey(pin.server, pin.tool), pin]));
  const pinnedAt = now();
  const verdicts = await Promise.all(
    tools.map(async (tool): Promise<Verdict> => {
      if (tool.origin.kind !== 'mcp') return { kind: 'visible' };
      const definition = toolDefinition(tool);
      const fingerprint = fingerprintDefinition(definition);
      const known = pins.get(pinKey(tool.origin.server, tool.origin.tool));
      if (known !== undefined) return compare(known, definition, fingerprint);
      const mine: ToolPin = {
        server: tool.origin.server,
        tool: tool.origin.tool,
        fingerprint,
        definition,
        pinnedAt,
        acceptedBy: FIRST_SEEN,
      };
      const stored = await store.pinToolIfNew(mine);
      if (stored.fingerprint !== fingerprint) return compare(stored, definition, fingerprint);
      return stored.pinnedAt === pinnedAt && stored.acceptedBy === FIRST_SEEN
        ? { kind: 'pinned', pin: stored }
        : { kind: 'visible' };
    }),
  );
  const check: PinCheck = { visible: [], changed: [], pinned: [] };
  verdicts.forEach((verdict, i) => {
    const tool = tools[i];
    if (tool === undefined) return;
    if (verdict.kind === 'changed') {
      check.changed.push({ tool, pin: verdict.pin, fingerprint: verdict.fingerprint, changes: verdict.changes });
      return;
    }
    check.visible.push(tool);
    // One tool listed twice (two exposed names) is pinned once.
    if (
      verdict.kind === 'pinned' &&
      !check.pinned.some((p) => p.server === verdict.pin.server && p.tool === verdict.pin.tool)
    )
      check.pinned.push(verdict.pin);
  });
  return check;
}

function compare(pin: ToolPin, definition: JsonObject, fingerprint: string): Verdict {
  if (pin.fingerprint === fingerprint) return { kind: 'visible' };
  const changes = describeToolChange(pin.definition, definition);
  // Same definition, other hash: a pin written by a toolgate that fingerprinted differently.
  if (changes.length === 0)
    changes.push(`fingerprint changed: ${pin.fingerprint.slice(0, 12)}… → ${fingerprint.slice(0, 12)}…`);
  return { kind: 'changed', pin, fingerprint, changes };
}

function pinKey(server: string, tool: string): string {
  return `${server}\u0000${tool}`;
}
