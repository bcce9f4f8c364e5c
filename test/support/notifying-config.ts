import type { Client } from '@modelcontextprotocol/client';

/** The upstream server of the notification tests (test/fixtures/mcp/notifying-server.ts). */
export const NOTIFYING = new URL('../fixtures/mcp/notifying-server.ts', import.meta.url).pathname;
export const ACME = 'acme-key-123456';
export const GLOBEX = 'globex-key-123456';

/**
 * A gateway config with the notifying server and two tenants: acme may use it, globex may not; a stdio session acts
 * for acme. `gateway`: more lines of the `gateway:` section, indented.
 */
export function notifyingConfig(gateway: string): string {
  return `
servers:
  notifying:
    command: ${JSON.stringify(process.execPath)}
    args: [${JSON.stringify(NOTIFYING)}]
tenants:
  acme:
    apiKeys:
      - { key: ${ACME}, userId: alice }
  globex:
    deny: ["notifying/*"]
    apiKeys:
      - { key: ${GLOBEX}, userId: bob }
gateway:
  identity: { tenant: acme, user: alice }
${gateway}
`;
}

/** The notifications the gateway forwards about lists and resources. */
export const LIST_NOTIFICATIONS = [
  'notifications/tools/list_changed',
  'notifications/prompts/list_changed',
  'notifications/resources/list_changed',
  'notifications/resources/updated',
] as const;

type WatchedMethod = (typeof LIST_NOTIFICATIONS)[number] | 'notifications/message';

/** The notifications of each method a client receives (params, in order). */
export function watchNotifications(
  client: Client,
  methods: readonly WatchedMethod[] = LIST_NOTIFICATIONS,
): Map<string, unknown[]> {
  const seen = new Map<string, unknown[]>();
  for (const method of methods)
    client.setNotificationHandler(method, (notification) => {
      seen.set(method, [...(seen.get(method) ?? []), notification.params]);
    });
  return seen;
}
