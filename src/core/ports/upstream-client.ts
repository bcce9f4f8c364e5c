import type { JsonObject } from '../json.ts';
import type { ToolSpec } from '../tools.ts';
import type { ToolSource, UpstreamNotification } from './tool-source.ts';

/**
 * The client capabilities a gateway declares to upstream MCP servers on a client's behalf: the part of what the
 * client declared that toolgate can forward (docs/gateway.md, "Client capabilities offered upstream").
 */
export interface OfferedClientCapabilities {
  sampling?: JsonObject;
  elicitation?: { form?: JsonObject; url?: JsonObject };
  roots?: { listChanged?: boolean };
}

/** The requests an upstream server may send to the client it serves through the gateway. */
export type UpstreamRequestMethod = 'sampling/createMessage' | 'elicitation/create' | 'roots/list';

export interface UpstreamRequest {
  /** The configured name of the server that asks. */
  server: string;
  method: UpstreamRequestMethod;
  /** As the server sent them (the SDK has checked their shape). */
  params: JsonObject;
  /** Aborted when the server cancels its request or the connection closes. */
  signal: AbortSignal;
}

export interface UpstreamClientOptions {
  capabilities: OfferedClientCapabilities;
  /**
   * Answers a server's request with the result to send back. Throwing a ToolgateError with code `denied` answers
   * with a JSON-RPC error carrying its message (a policy refused the request); any other error is answered as the
   * SDK answers a failed handler.
   */
  onRequest: (request: UpstreamRequest) => Promise<JsonObject>;
  /** A `notifications/message` (log) of the server, as sent. */
  onLog?: ((server: string, params: JsonObject) => void) | undefined;
  /** The server's other notifications (list changes, resource updates), which belong to this client alone. */
  onNotification?: ((notification: UpstreamNotification) => void) | undefined;
}

/** Upstream connections of their own for one gateway session, opened lazily and closed with `close()`. */
export interface SessionToolSet {
  /** The tools as the session's calls reach them (results already cut to the gateway's limit). */
  tools: ToolSource;
  /** The tools of the servers that are up, named as the shared registry names them. */
  list: () => Promise<ToolSpec[]>;
  /** Asks every server to list its tools again. */
  refresh: () => void;
  /** The client's roots changed: each connected server is told (`notifications/roots/list_changed`). */
  rootsChanged: () => void;
  close: () => Promise<void>;
}

/** Opens a session's own upstream connections (the composition root knows the server configs). */
export type SessionToolsFactory = (options: UpstreamClientOptions) => SessionToolSet;
