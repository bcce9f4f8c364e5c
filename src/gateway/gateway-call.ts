import type { ApprovalReason, JsonObject, ToolEffect, ToolResult } from '../core/index.ts';
import type { CatalogEntry, ToolCatalog } from '../orchestrator/call/tool-catalog.ts';

/** One tools/call of an MCP client, as a gateway session runs it. */
export interface GatewayCallRequest {
  catalog: ToolCatalog;
  name: string;
  arguments: JsonObject;
  signal?: AbortSignal | undefined;
  /** Told of the upstream server's progress (the client asked for progress with `_meta.progressToken`). */
  onProgress?: ((progress: JsonObject) => void) | undefined;
  /** The client's W3C traceparent (`_meta.traceparent`): the call's spans continue its trace. */
  traceparent?: string | undefined;
  /**
   * Refuses the call before the gate (a rate limit, counted in the store): recorded as the gate's denial with this code
   * and message.
   */
  refuse?: ((entry: CatalogEntry) => GatewayRefusal | undefined | Promise<GatewayRefusal | undefined>) | undefined;
}

/** Why a call was refused before the gate. */
export interface GatewayRefusal {
  code: 'rate_limited';
  message: string;
}

/** A finished call: what goes back to the MCP client. */
export interface GatewayDone {
  toolCallId: string;
  result: ToolResult;
}

/** A held call: what the person deciding is shown. */
export interface GatewayHeld {
  toolCallId: string;
  name: string;
  /** What the call would run with (normalised, injected, redacted): what the person is shown. */
  arguments: JsonObject;
  effect: ToolEffect;
  reason: ApprovalReason;
}

export type GatewayCallResult =
  | ({ kind: 'done' } & GatewayDone)
  | ({
      kind: 'held';
      /** Settles when the call is decided (here, by the client, or over the runs API) and done, or refused. */
      outcome: Promise<GatewayDone>;
    } & GatewayHeld);
