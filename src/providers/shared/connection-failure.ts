/** No answer could be had from the server: refused, reset, unreachable, or a TLS failure. */
export class ConnectionFailure extends Error {
  readonly code: string | undefined;

  constructor(cause: unknown) {
    super('connection failed', { cause });
    this.name = 'ConnectionFailure';
    this.code = errorCode(cause);
  }
}

/** The `code` a Node or undici error carries (ECONNRESET, UND_ERR_SOCKET…), when it is a string. */
export function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  return typeof error.code === 'string' ? error.code : undefined;
}
