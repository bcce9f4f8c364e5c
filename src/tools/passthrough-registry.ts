import {
  ToolgateError,
  describeError,
  isJsonObject,
  type CompletionRequest,
  type JsonObject,
  type PassthroughRequestOptions,
  type PassthroughSource,
  type ToolSource,
  type UpstreamNotification,
} from '../core/index.ts';
import { uniqueNames } from './registry-names.ts';

/** The `_meta` key that tells which configured server an item comes from. */
export const SERVER_META_KEY = 'toolgate/server';

/** A registry's source and whether it is up (listed its tools at the last attempt). */
export interface PassthroughMember {
  source: ToolSource;
  up: boolean;
}

export interface PassthroughRegistryOptions {
  /** Every source in configuration order, once those still starting have answered (or the signal fired). */
  members: (signal: AbortSignal | undefined) => Promise<PassthroughMember[]>;
  /** Every source, for their notifications (default none). */
  sources?: readonly ToolSource[];
}

/** What a combining source answers when no server can complete an argument (the spec's empty completion). */
const NO_COMPLETION: JsonObject = { completion: { values: [], hasMore: false } };

interface NamedPrompt {
  source: ToolSource;
  /** The prompt's name on its own server. */
  original: string;
}

type Listed = { source: ToolSource; items: JsonObject[] };

/**
 * The resources and prompts of a registry's sources as one server's. A source
 * that is down, or fails to list, is left out (the registry's health reports
 * it). Resource URIs are kept as they are. Prompt names are made unique the
 * way tool names are (a name two servers share becomes `server_name`), but
 * not sanitised: MCP clients, unlike model APIs, take any prompt name. Every
 * item says in `_meta["toolgate/server"]` where it comes from.
 */
export class PassthroughRegistry implements PassthroughSource {
  readonly #members: PassthroughRegistryOptions['members'];
  /** The source of each URI of the last resource listing. */
  #owners: Map<string, ToolSource> | undefined;
  /** Sources that listed resources (or templates) last time: those a URI nobody listed is tried on. */
  readonly #hasResources = new Set<ToolSource>();
  readonly #hasTemplates = new Set<ToolSource>();
  #templatesListed = false;
  /** The source of each URI template of the last template listing (where its completions are asked). */
  #templateOwners = new Map<string, ToolSource>();
  /** Prompts by the name the last listing gave them. */
  #prompts: Map<string, NamedPrompt> | undefined;
  /** Each source's last listed prompts, so a server going away does not rename the others' prompts. */
  readonly #knownPrompts = new Map<ToolSource, JsonObject[]>();

  readonly #sources: readonly ToolSource[] | undefined;

  constructor(options: PassthroughRegistryOptions) {
    this.#members = options.members;
    this.#sources = options.sources;
  }

  async listResources(options: { signal?: AbortSignal } = {}): Promise<JsonObject[]> {
    const listed = await this.#listEach(options.signal, (p, o) => p.listResources(o));
    const owners = new Map<string, ToolSource>();
    this.#hasResources.clear();
    for (const { source, items } of listed) {
      if (items.length > 0) this.#hasResources.add(source);
      for (const item of items)
        if (typeof item['uri'] === 'string' && !owners.has(item['uri'])) owners.set(item['uri'], source);
    }
    this.#owners = owners;
    return listed.flatMap(({ source, items }) => items.map((item) => tagged(item, source)));
  }

  async listResourceTemplates(options: { signal?: AbortSignal } = {}): Promise<JsonObject[]> {
    const listed = await this.#listEach(options.signal, (p, o) => p.listResourceTemplates(o));
    this.#hasTemplates.clear();
    const owners = new Map<string, ToolSource>();
    for (const { source, items } of listed) {
      if (items.length > 0) this.#hasTemplates.add(source);
      for (const item of items)
        if (typeof item['uriTemplate'] === 'string' && !owners.has(item['uriTemplate']))
          owners.set(item['uriTemplate'], source);
    }
    this.#templateOwners = owners;
    this.#templatesListed = true;
    return listed.flatMap(({ source, items }) => items.map((item) => tagged(item, source)));
  }

  /**
   * From the source that listed this URI; a URI nobody listed (one made from
   * a template, or new since) is tried on each source with resources, in
   * order, and the first answer counts.
   */
  async readResource(uri: string, options: PassthroughRequestOptions = {}): Promise<JsonObject> {
    const accepted = options.servers ?? (() => true);
    const asked = options.signal === undefined ? {} : { signal: options.signal };
    const progress = options.onProgress === undefined ? {} : { onProgress: options.onProgress };
    if (this.#owners === undefined) await this.listResources(asked);
    const owner = this.#owners?.get(uri);
    if (owner?.passthrough !== undefined && accepted(owner.name))
      return await owner.passthrough.readResource(uri, { ...asked, ...progress });
    if (!this.#templatesListed) await this.listResourceTemplates(asked);
    const members = await this.#members(options.signal);
    const candidates = members.filter(
      (m) => m.up && accepted(m.source.name) && (this.#hasResources.has(m.source) || this.#hasTemplates.has(m.source)),
    );
    const tried: string[] = [];
    const failures: string[] = [];
    for (const { source } of candidates) {
      if (source.passthrough === undefined) continue;
      try {
        return await source.passthrough.readResource(uri, asked);
      } catch (error) {
        if (options.signal?.aborted === true) throw error;
        tried.push(source.name);
        failures.push(describeError(error));
      }
    }
    const why =
      tried.length === 0
        ? ': no server that is up (and open to you) offers resources'
        : ` (tried ${tried.join(', ')}): ${failures.join('; ')}`;
    throw new ToolgateError('not_found', `no MCP server has resource "${uri}"${why}`, { details: { servers: tried } });
  }

  /** Every prompt of the sources that are up; a name two servers share is prefixed `server_name`. */
  async listPrompts(options: { signal?: AbortSignal } = {}): Promise<JsonObject[]> {
    const members = await this.#members(options.signal);
    const listed = await this.#listEach(options.signal, (p, o) => p.listPrompts(o), members);
    const fresh = new Map(
      listed.map(({ source, items }) => [source, items.filter((p) => typeof p['name'] === 'string')]),
    );
    for (const [source, prompts] of fresh) this.#knownPrompts.set(source, prompts);
    // Sources that could not list count with their last known prompts, so nobody else's names change meanwhile.
    const claims = members.flatMap(({ source }) =>
      (this.#knownPrompts.get(source) ?? []).map((prompt) => ({
        item: { source, prompt },
        server: source.name,
        name: String(prompt['name']),
      })),
    );
    const prompts = new Map<string, NamedPrompt>();
    const out: JsonObject[] = [];
    for (const { name, item } of uniqueNames(claims)) {
      if (!fresh.has(item.source)) continue;
      prompts.set(name, { source: item.source, original: String(item.prompt['name']) });
      out.push({ ...tagged(item.prompt, item.source), name });
    }
    this.#prompts = prompts;
    return out;
  }

  async getPrompt(
    name: string,
    args?: Record<string, string>,
    options: PassthroughRequestOptions = {},
  ): Promise<JsonObject> {
    // A name the last listing did not have may be new: list again before giving up.
    if (this.#prompts?.has(name) !== true)
      await this.listPrompts(options.signal === undefined ? {} : { signal: options.signal });
    const prompts = this.#prompts ?? new Map<string, NamedPrompt>();
    const entry = prompts.get(name);
    const passthrough = entry?.source.passthrough;
    if (entry === undefined || passthrough === undefined) {
      const known = [...prompts.keys()];
      throw new ToolgateError(
        'not_found',
        `there is no prompt named "${name}" ` +
          `(${known.length === 0 ? 'no server that is up offers prompts' : `known prompts: ${known.join(', ')}`})`,
        {
          details: { prompts: known },
        },
      );
    }
    return await passthrough.getPrompt(entry.original, args, options);
  }

  /** Routed by `ref`: a prompt to its server (by its name there), a resource template to the server that listed it. */
  async complete(request: CompletionRequest, options: PassthroughRequestOptions = {}): Promise<JsonObject> {
    const accepted = options.servers ?? (() => true);
    const asked = options.signal === undefined ? {} : { signal: options.signal };
    const { ref } = request;
    if (ref.type === 'ref/prompt') {
      if (this.#prompts?.has(ref.name) !== true) await this.listPrompts(asked);
      const entry = this.#prompts?.get(ref.name);
      if (entry?.source.passthrough?.complete === undefined || !accepted(entry.source.name)) return NO_COMPLETION;
      return entry.source.passthrough.complete(
        { ...request, ref: { type: 'ref/prompt', name: entry.original } },
        asked,
      );
    }
    if (!this.#templateOwners.has(ref.uri)) await this.listResourceTemplates(asked);
    const owner = this.#templateOwners.get(ref.uri);
    if (owner?.passthrough?.complete === undefined || !accepted(owner.name)) return NO_COMPLETION;
    return owner.passthrough.complete(request, asked);
  }

  /** On the server that listed `uri` (else the first open to the caller that can read it). */
  async subscribeResource(uri: string, options: PassthroughRequestOptions = {}): Promise<{ server: string }> {
    const accepted = options.servers ?? (() => true);
    const asked = options.signal === undefined ? {} : { signal: options.signal };
    if (this.#owners?.has(uri) !== true) await this.listResources(asked);
    const owner = this.#owners?.get(uri);
    if (owner?.passthrough?.subscribeResource !== undefined && accepted(owner.name))
      return owner.passthrough.subscribeResource(uri, asked);
    const open = (await this.#members(options.signal)).flatMap(({ source, up }) => {
      const passthrough = source.passthrough;
      const subscribe = passthrough?.subscribeResource;
      if (!up || !accepted(source.name) || subscribe === undefined || passthrough?.offersSubscribe?.() !== true)
        return [];
      return [{ passthrough, subscribe: () => subscribe.call(passthrough, uri, asked) }];
    });
    // A URI nobody listed (made from a template): the server that can read it is the one to watch it.
    for (const { passthrough, subscribe } of open) {
      const read = await passthrough.readResource(uri, asked).then(
        () => true,
        () => false,
      );
      if (read) return subscribe();
    }
    // Nobody can read it yet: with one server open to the caller that offers subscriptions, the URI is its to accept
    // or refuse, as it would be without the gateway (servers may watch a resource that appears later).
    const [only] = open;
    if (only !== undefined && open.length === 1) return only.subscribe();
    throw new ToolgateError('not_found', `no MCP server open to you offers subscriptions to resource "${uri}"`);
  }

  async unsubscribeResource(uri: string, server: string): Promise<void> {
    const members = await this.#members(undefined);
    const source = members.find((m) => m.source.name === server)?.source;
    await source?.passthrough?.unsubscribeResource?.(uri, server);
  }

  offersSubscribe(): boolean {
    return (this.#sources ?? []).some((source) => source.passthrough?.offersSubscribe?.() === true);
  }

  onNotification(listener: (notification: UpstreamNotification) => void): () => void {
    const stops = (this.#sources ?? []).map((source) => source.passthrough?.onNotification?.(listener));
    return () => {
      for (const stop of stops) stop?.();
    };
  }

  /** Lists every source that is up, in parallel; one that fails is left out. */
  async #listEach(
    signal: AbortSignal | undefined,
    list: (passthrough: PassthroughSource, options: { signal?: AbortSignal }) => Promise<JsonObject[]>,
    known?: PassthroughMember[],
  ): Promise<Listed[]> {
    const members = known ?? (await this.#members(signal));
    const up = members.filter((m) => m.up && m.source.passthrough !== undefined);
    const options = signal === undefined ? {} : { signal };
    const settled = await Promise.allSettled(
      up.map(async ({ source }) => ({
        source,
        items: source.passthrough === undefined ? [] : await list(source.passthrough, options),
      })),
    );
    signal?.throwIfAborted();
    return settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  }
}

/** The item with `_meta["toolgate/server"]` added (any `_meta` it had is kept). */
function tagged(item: JsonObject, source: ToolSource): JsonObject {
  const meta = isJsonObject(item['_meta']) ? item['_meta'] : {};
  return { ...item, _meta: { ...meta, [SERVER_META_KEY]: source.name } };
}
