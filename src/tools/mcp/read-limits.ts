import { DEFAULT_MAX_JSON_DEPTH } from '../../core/json-shape.ts';
import type { ScanLimits } from './message-scanner.ts';

/**
 * Every message up to this size is read whole, whatever the result limits: a long `tools/list`, a result cut
 * afterwards.
 */
export const MIN_KEEP_BYTES = 4 * 1024 * 1024;
/** Room for the JSON-RPC envelope around a result of the largest size kept. */
const ENVELOPE_BYTES = 64 * 1024;

/**
 * How much of one message from an MCP server is held (a larger one is cut to
 * its first maxResultBytes and the envelope), and how deep it may nest: a
 * result's own levels as the shape limit of tool output
 * (DEFAULT_MAX_JSON_DEPTH), plus the message around it.
 */
export function readLimits(maxResultBytes: number): ScanLimits {
  const headBytes = maxResultBytes + ENVELOPE_BYTES;
  return { keepBytes: Math.max(MIN_KEEP_BYTES, headBytes), headBytes, maxDepth: DEFAULT_MAX_JSON_DEPTH + 1 };
}
