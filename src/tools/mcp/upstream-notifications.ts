import type { Client } from '@modelcontextprotocol/client';
import { isJsonObject, type UpstreamNotification } from '../../core/index.ts';

/** Longest resource URI passed on from a server's `notifications/resources/updated` (longer ones are dropped). */
const MAX_URI_LENGTH = 2048;

/**
 * Listens on a server's connection for the notifications the gateway forwards
 * (list changes, resource updates, log messages) and hands each to `emit`
 * tagged with the server's name. The connection is shared by every session,
 * so what is emitted is the server's, not any one session's.
 */
export function watchUpstreamNotifications(
  client: Client,
  server: string,
  emit: (notification: UpstreamNotification) => void,
): void {
  client.setNotificationHandler('notifications/tools/list_changed', () => emit({ kind: 'tools_list_changed', server }));
  client.setNotificationHandler('notifications/prompts/list_changed', () =>
    emit({ kind: 'prompts_list_changed', server }),
  );
  client.setNotificationHandler('notifications/resources/list_changed', () =>
    emit({ kind: 'resources_list_changed', server }),
  );
  client.setNotificationHandler('notifications/resources/updated', (notification) => {
    const { uri } = notification.params;
    if (typeof uri === 'string' && uri.length <= MAX_URI_LENGTH) emit({ kind: 'resource_updated', server, uri });
  });
  client.setNotificationHandler('notifications/message', (notification) => {
    const params: unknown = notification.params;
    if (isJsonObject(params)) emit({ kind: 'log', server, params });
  });
}
