// Verifies a toolgate approval notification (Standard Webhooks) with WebCrypto only: it runs in Node, Deno, Bun,
// browsers and edge runtimes alike.

/** Notifications older (or further in the future) than this are refused by default: 5 minutes. */
export const DEFAULT_WEBHOOK_TOLERANCE_SECONDS = 300;

const WHSEC_PREFIX = 'whsec_';

/** A request's headers: a fetch `Headers`, or Node's `IncomingMessage.headers` (lower-case names). */
export type WebhookHeaders = { get(name: string): string | null } | Record<string, string | string[] | undefined>;

export interface VerifyWebhookOptions {
  /** The target's `secret`: `whsec_…` is base64 after the prefix; any other secret is its UTF-8 bytes. */
  secret: string;
  headers: WebhookHeaders;
  /** The raw body exactly as received (not parsed and serialised again). */
  body: string | Uint8Array;
  /** Default DEFAULT_WEBHOOK_TOLERANCE_SECONDS. */
  toleranceSeconds?: number;
  /** Milliseconds since the epoch (default Date.now()). */
  now?: () => number;
}

/**
 * The result of verifyWebhook. `id` is the delivery's `webhook-id`: keep the ids seen for the tolerance window and
 * drop a repeat — with the timestamp check, that is what makes a captured notification useless to replay.
 */
export type WebhookVerification =
  | { valid: true; id: string; timestamp: number }
  | { valid: false; reason: 'missing_headers' | 'bad_timestamp' | 'expired' | 'bad_signature' };

/** Checks a notification's `webhook-signature` against its id, timestamp and body (docs/approvals.md). */
export async function verifyWebhook(options: VerifyWebhookOptions): Promise<WebhookVerification> {
  const id = header(options.headers, 'webhook-id');
  const stamp = header(options.headers, 'webhook-timestamp');
  const signatures = header(options.headers, 'webhook-signature');
  if (id === undefined || stamp === undefined || signatures === undefined)
    return { valid: false, reason: 'missing_headers' };
  if (!/^\d{1,12}$/.test(stamp)) return { valid: false, reason: 'bad_timestamp' };
  const timestamp = Number(stamp);
  const now = Math.floor((options.now ?? Date.now)() / 1000);
  if (Math.abs(now - timestamp) > (options.toleranceSeconds ?? DEFAULT_WEBHOOK_TOLERANCE_SECONDS))
    return { valid: false, reason: 'expired' };
  const body = typeof options.body === 'string' ? options.body : new TextDecoder().decode(options.body);
  const key = await globalThis.crypto.subtle.importKey(
    'raw',
    keyBytes(options.secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  const expected = new Uint8Array(
    await globalThis.crypto.subtle.sign('HMAC', key, new TextEncoder().encode(`${id}.${stamp}.${body}`)),
  );
  // Several space-separated signatures may come (a secret being rotated): one valid `v1` one is enough.
  for (const entry of signatures.split(' ')) {
    const [version, value] = entry.split(',', 2);
    if (version !== 'v1' || value === undefined) continue;
    const given = fromBase64(value);
    if (given !== undefined && sameBytes(given, expected)) return { valid: true, id, timestamp };
  }
  return { valid: false, reason: 'bad_signature' };
}

function header(headers: WebhookHeaders, name: string): string | undefined {
  const value = typeof headers.get === 'function' ? headers.get(name) : valueOf(headers, name);
  return value === null || value === undefined || value === '' ? undefined : value;
}

function valueOf(headers: WebhookHeaders, name: string): string | undefined {
  const value: unknown = Reflect.get(headers, name);
  if (Array.isArray(value)) return typeof value[0] === 'string' ? value[0] : undefined;
  return typeof value === 'string' ? value : undefined;
}

function keyBytes(secret: string): Uint8Array<ArrayBuffer> {
  if (secret.startsWith(WHSEC_PREFIX)) return fromBase64(secret.slice(WHSEC_PREFIX.length)) ?? new Uint8Array(0);
  return new TextEncoder().encode(secret);
}

function fromBase64(text: string): Uint8Array<ArrayBuffer> | undefined {
  try {
    const binary = atob(text);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes;
  } catch {
    return undefined;
  }
}

/** Constant time for equal lengths: the time taken says nothing about how much of a forged signature was right. */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= (a[i] ?? 0) ^ (b[i] ?? 0);
  return diff === 0;
}
