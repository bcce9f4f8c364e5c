import type { ToolSpec } from '../core/index.ts';
import type { PinCheck } from './tool-pins.ts';

/** How long one listing of the upstream tools (and its pin check) is reused. */
const CATALOG_TTL_MS = 1000;
/**
 * How often the upstream tools are listed again while sessions are open, so a change is noticed without a client's
 * tools/list.
 */
export const DEFAULT_RELIST_MS = 60_000;

export interface UpstreamToolsOptions {
  /** The upstream tools of the servers that are up (names as runs see them). */
  listTools: () => Promise<ToolSpec[]>;
  /** Asks the upstream servers to list their tools again: how a changed tool is noticed. */
  refreshTools?: (() => void) | undefined;
  /** How often upstream tools are listed again without a client asking (default DEFAULT_RELIST_MS). */
  relistMs?: number | undefined;
  /** Tool pinning; absent: off. */
  checkPins?: ((tools: readonly ToolSpec[]) => Promise<PinCheck>) | undefined;
}

export interface UpstreamListing {
  tools: ToolSpec[];
  pins: PinCheck | undefined;
}

/**
 * The gateway's upstream tools, with their pin check: one listing reused for
 * CATALOG_TTL_MS, and the servers asked to list again when a client lists
 * (`relist`) or every relistMs.
 */
export class UpstreamTools {
  readonly #options: UpstreamToolsOptions;
  #listing: { at: number; value: Promise<UpstreamListing> } | undefined;
  #listedAt = Date.now();

  constructor(options: UpstreamToolsOptions) {
    this.#options = options;
  }

  /** `force`: list again even if a listing was asked for less than CATALOG_TTL_MS ago (a server said it changed). */
  list(options: { relist?: boolean; force?: boolean } = {}): Promise<UpstreamListing> {
    if (options.relist === true || Date.now() - this.#listedAt > (this.#options.relistMs ?? DEFAULT_RELIST_MS))
      this.#relist(options.force === true);
    return this.#upstream();
  }

  /** The upstream servers list again (at most once per CATALOG_TTL_MS). */
  #relist(force: boolean): void {
    const now = Date.now();
    if (!force && now - this.#listedAt < CATALOG_TTL_MS) return;
    this.#listedAt = now;
    this.#options.refreshTools?.();
    this.#listing = undefined;
  }

  #upstream(): Promise<UpstreamListing> {
    const now = Date.now();
    if (this.#listing !== undefined && now - this.#listing.at < CATALOG_TTL_MS) return this.#listing.value;
    const value = (async () => {
      const tools = await this.#options.listTools();
      const pins = this.#options.checkPins === undefined ? undefined : await this.#options.checkPins(tools);
      return { tools, pins };
    })();
    this.#listing = { at: now, value };
    value.catch(() => {
      if (this.#listing?.value === value) this.#listing = undefined;
    });
    return value;
  }
}
