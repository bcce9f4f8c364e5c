import { draft, type EventDraft } from '../core/index.ts';
import type { Policy } from '../gate/index.ts';
import { buildToolCatalog, type CatalogEntry, type ToolCatalog } from '../orchestrator/call/tool-catalog.ts';
import type { PinCheck } from './tool-pins.ts';

/**
 * The catalog with every tool whose definition changed since it was pinned
 * refused, with the reason; `news`: a tool_changed event for each change not
 * in `told` yet (fingerprints of changes the session's run already records),
 * which it adds to.
 */
export function refuseChangedTools(input: {
  catalog: ToolCatalog;
  changed: PinCheck['changed'];
  policy: Policy;
  tenantId: string | undefined;
  told: Set<string>;
}): { catalog: ToolCatalog; news: EventDraft[] } {
  const { catalog, changed, told } = input;
  const denied = new Map(catalog.denied);
  const full = buildToolCatalog(
    changed.map((c) => c.tool),
    { policy: input.policy, tenantId: input.tenantId },
  );
  const news: EventDraft[] = [];
  for (const change of changed) {
    const entry: CatalogEntry | undefined =
      full.visible.get(change.tool.name) ?? full.denied.get(change.tool.name)?.entry;
    if (entry === undefined) continue;
    const reason =
      `its definition changed on server "${change.tool.origin.server}" since it was pinned ` +
      (`(${change.changes.slice(0, 3).join('; ')}); an operator must accept the change ` +
        `first (toolgate tools --diff, then toolgate tools --accept ${change.tool.name})`);
    denied.set(change.tool.name, { entry, reason });
    if (told.has(change.fingerprint)) continue;
    told.add(change.fingerprint);
    news.push(
      draft('tool_changed', {
        name: change.tool.name,
        server: change.tool.origin.server,
        tool: change.tool.origin.tool,
        fingerprint: change.fingerprint,
        pinnedFingerprint: change.pin.fingerprint,
        pinnedAt: change.pin.pinnedAt,
        changes: change.changes,
      }),
    );
  }
  return { catalog: { ...catalog, denied }, news };
}
