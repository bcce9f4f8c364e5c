import { createHmac } from 'node:crypto';

/** The prefix of a Standard Webhooks secret whose rest is base64. */
const WHSEC_PREFIX = 'whsec_';

/**
 * The key bytes of a webhook secret: a `whsec_…` secret is base64 after the prefix (Standard Webhooks); any other
 * secret is used as its UTF-8 bytes.
 */
export function webhookKey(secret: string): Buffer {
  return secret.startsWith(WHSEC_PREFIX)
    ? Buffer.from(secret.slice(WHSEC_PREFIX.length), 'base64')
    : Buffer.from(secret, 'utf8');
}

/**
 * The Standard Webhooks headers of one attempt: `webhook-id` (the same on every attempt of a delivery),
 * `webhook-timestamp` (unix seconds) and `webhook-signature` = `v1,` + base64 HMAC-SHA256 of `id.timestamp.body`.
 */
export function signWebhook(options: {
  secret: string;
  id: string;
  body: string;
  /** Unix seconds. */
  timestamp: number;
}): Record<'webhook-id' | 'webhook-timestamp' | 'webhook-signature', string> {
  const { id, body, timestamp } = options;
  const signature = createHmac('sha256', webhookKey(options.secret))
    .update(`${id}.${timestamp}.${body}`)
    .digest('base64');
  return { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': `v1,${signature}` };
}
