import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { isJsonObject, type JsonObject } from '../core/index.ts';

/** What an approval's `requestState` names: the session's run, the held call, and the request it belongs to. */
export interface HeldCallRef {
  runId: string;
  toolCallId: string;
  /** sha256 of the tool name and its arguments as the client sent them: a retry must be the same request. */
  request: string;
}

/**
 * Signs and checks the `requestState` of an approval asked through MCP
 * elicitation. It travels through the client, so it is attacker-controlled on
 * the way back (MCP's multi-round-trip rules): without a valid HMAC it names
 * nothing. Several gateway instances serving one client need the same secret
 * (`gateway.stateSecret`); the default is random per process.
 */
export class RequestStateCodec {
  readonly #key: Buffer;

  constructor(secret?: string) {
    this.#key = secret === undefined ? randomBytes(32) : Buffer.from(secret, 'utf8');
  }

  static requestHash(name: string, args: JsonObject): string {
    return createHash('sha256')
      .update(JSON.stringify([name, args]))
      .digest('base64url');
  }

  encode(ref: HeldCallRef): string {
    const body = Buffer.from(JSON.stringify({ r: ref.runId, c: ref.toolCallId, q: ref.request }), 'utf8').toString(
      'base64url',
    );
    return `${body}.${this.#mac(body)}`;
  }

  /** The reference, or undefined for anything not signed by this codec's key. */
  decode(state: string): HeldCallRef | undefined {
    const dot = state.indexOf('.');
    if (dot <= 0 || state.length > 4096) return undefined;
    const body = state.slice(0, dot);
    // The signature is compared as the exact text issued: no lenient decoding that would accept variants of it.
    const given = Buffer.from(state.slice(dot + 1), 'utf8');
    const expected = Buffer.from(this.#mac(body), 'utf8');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    let parsed: unknown;
    try {
      parsed = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
    } catch {
      return undefined;
    }
    if (!isJsonObject(parsed)) return undefined;
    const { r, c, q } = parsed;
    if (typeof r !== 'string' || typeof c !== 'string' || typeof q !== 'string') return undefined;
    return { runId: r, toolCallId: c, request: q };
  }

  #mac(body: string): string {
    return createHmac('sha256', this.#key).update(body).digest('base64url');
  }
}
