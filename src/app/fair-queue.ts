/** The queue's name for callers without a tenant (tenant ids cannot be empty). */
const NO_TENANT = '';

/**
 * Runs waiting for a slot: one FIFO per tenant, served in turn. A tenant with
 * 200 runs waiting and one with 1 alternate, so the one run starts second,
 * not two hundred and first; within a tenant, runs start in the order they came.
 */
export class FairQueue {
  /** Tenants in the order they are served next (Map order); each with its waiting runs, oldest first. */
  readonly #byTenant = new Map<string, string[]>();
  readonly #tenantOf = new Map<string, string>();

  /** Runs waiting, of every tenant. */
  get size(): number {
    return this.#tenantOf.size;
  }

  /** Runs of `tenantId` waiting. */
  sizeOf(tenantId: string | undefined): number {
    return this.#byTenant.get(tenantId ?? NO_TENANT)?.length ?? 0;
  }

  has(runId: string): boolean {
    return this.#tenantOf.has(runId);
  }

  /** Queues a run behind its tenant's others; a run already waiting keeps its place. */
  push(runId: string, tenantId: string | undefined): void {
    if (this.#tenantOf.has(runId)) return;
    const tenant = tenantId ?? NO_TENANT;
    this.#tenantOf.set(runId, tenant);
    const runs = this.#byTenant.get(tenant);
    if (runs === undefined) this.#byTenant.set(tenant, [runId]);
    else runs.push(runId);
  }

  /** The next run: the oldest of the tenant whose turn it is; that tenant then goes to the back. */
  shift(): string | undefined {
    for (const [tenant, runs] of this.#byTenant) {
      const runId = runs.shift();
      this.#byTenant.delete(tenant);
      if (runs.length > 0) this.#byTenant.set(tenant, runs);
      if (runId === undefined) continue;
      this.#tenantOf.delete(runId);
      return runId;
    }
    return undefined;
  }

  /** Takes a run out of the queue (cancelled, or claimed by a sweep); false when it was not waiting. */
  delete(runId: string): boolean {
    const tenant = this.#tenantOf.get(runId);
    if (tenant === undefined) return false;
    this.#tenantOf.delete(runId);
    const runs = this.#byTenant.get(tenant) ?? [];
    runs.splice(runs.indexOf(runId), 1);
    if (runs.length === 0) this.#byTenant.delete(tenant);
    return true;
  }

  clear(): void {
    this.#byTenant.clear();
    this.#tenantOf.clear();
  }
}
