import type { Transport } from '@modelcontextprotocol/client';

/**
 * Makes a connected client handle each response after the notifications that
 * came before it. The SDK dispatches a notification on a microtask but a
 * response at once, and forgets a request's progress handler with its
 * response: when both arrive in one read (a stdio chunk holding a server's last
 * progress and its result), that progress is dropped — and a client of the
 * gateway sees one progress notification fewer than the server sent. Deferring
 * responses by one microtask keeps the server's order.
 */
export function deliverResponsesAfterNotifications(transport: Transport): void {
  const dispatch = transport.onmessage;
  if (dispatch === undefined) return;
  transport.onmessage = (message, extra) => {
    if ('method' in message) dispatch(message, extra);
    else queueMicrotask(() => dispatch(message, extra));
  };
}
