import { ToolgateError } from '../../core/errors.ts';
import type { StatsFilter } from '../../core/stats.ts';
import { readQuery } from '../query.ts';
import { sendJson } from '../respond.ts';
import type { RequestContext } from '../server-context.ts';

/** A filter value longer than this names no tenant, intent, strategy or model there is. */
export const MAX_STATS_FILTER_LENGTH = 200;
const FILTERS = ['tenant', 'intent', 'strategy', 'model'] as const;

/**
 * GET /v1/stats: the live statistics of the window (StatsSnapshot), narrowed by `tenant`, `intent`, `strategy` and
 * `model`. A caller bound to a tenant sees that tenant's runs only; naming another tenant is refused.
 */
export async function getStats(ctx: RequestContext): Promise<void> {
  const query = readQuery(ctx.url, FILTERS);
  const source = ctx.state.stats;
  if (source === undefined) throw new ToolgateError('not_found', 'this server keeps no live statistics');
  const filter: StatsFilter = {};
  for (const name of FILTERS) {
    const value = query[name];
    if (value === undefined) continue;
    if (value === '' || value.length > MAX_STATS_FILTER_LENGTH) {
      throw new ToolgateError(
        'usage',
        `${name} must be 1 to ${MAX_STATS_FILTER_LENGTH} characters (a ${name} as GET /v1/stats lists it); ` +
          `got ${value.length}`,
      );
    }
    filter[name] = value;
  }
  const own = ctx.caller.tenantId;
  if (own !== undefined) {
    if (filter.tenant !== undefined && filter.tenant !== own) {
      throw new ToolgateError(
        'forbidden',
        `this API key belongs to tenant "${own}": its statistics are its own; leave out tenant= or use tenant=${own}`,
      );
    }
    filter.tenant = own;
  }
  sendJson(ctx.res, 200, source(filter));
}
