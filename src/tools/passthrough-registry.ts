import {
  ToolgateError,
  describeError,
  isJsonObject,
  type JsonObject,
  type PassthroughSource,
  type ToolSource,
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
}

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
  /** Prompts by the name the last listing gave them. */
  #prompts: Map<string, NamedPrompt> | undefined;
  /** Each source's last listed prompts, so a server going away does not rename the others' prompts. */
  readonly #knownPrompts = new Map<ToolSource, JsonObject[]>();

  constructor(options: PassthroughRegistryOptions) {
    this.#members = options.members;
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
    for (const { source, items } of listed) if (items.length > 0) this.#hasTemplates.add(source);
    this.#templatesListed = true;
    return listed.flatMap(({ source, items }) => items.map((item) => tagged(item, source)));
  }

  /**
   * From the source that listed this URI; a URI nobody listed (one made from
   * a template, or new since) is tried on each source with resources, in
   * order, and the first answer counts.
   */
  async readResource(
    uri: string,
    options: { signal?: AbortSignal; servers?: (name: string) => boolean } = {},
  ): Promise<JsonObject> {
    const accepted = options.servers ?? (() => true);
    const asked = options.signal === undefined ? {} : { signal: options.signal };
    if (this.#owners === undefined) await this.listResources(asked);
    const owner = this.#owners?.get(uri);
    if (owner?.passthrough !== undefined && accepted(owner.name))
      return await owner.passthrough.readResource(uri, asked);
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
    options: { signal?: AbortSignal } = {},
  ): Promise<JsonObject> {
    // A name the last listing did not have may be new: list again before giving up.
    if (this.#prompts?.has(name) !== true) await this.listPrompts(options);
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
