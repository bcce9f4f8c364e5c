/**
 * The text of a thrown value, for a message a person or a model reads: an Error's
 * message, anything else as a string. `{ stack: true }` keeps the stack, for logs.
 */
export function describeError(error: unknown, options: { stack?: boolean } = {}): string {
  if (error instanceof Error) return options.stack === true ? (error.stack ?? error.message) : error.message;
  return String(error);
}
