import type { JsonObject } from '../core/json.ts';
import type { InjectionContext } from './apply-injection.ts';

/** What a condition reads about one call: its CEL variables, and the parts a JSON-Schema condition checks. */
export interface ConditionInput {
  /** The prepared arguments: normalised, injected values in place, validated. */
  args: JsonObject;
  /** The name the model called. */
  tool: string;
  tenant: string | null;
  /** `{id, roles, …}`: the user fields the run has (`roles`: its caller's, `[]` without any); null without either. */
  user: JsonObject | null;
  /** The run's context values; `{}` without any. */
  context: JsonObject;
}

/** The condition input of a call, from its arguments and who made it (the values injection templates read). */
export function conditionInput(options: {
  args: JsonObject;
  tool: string;
  caller?: InjectionContext | undefined;
}): ConditionInput {
  const { caller } = options;
  const tenant = caller?.tenant?.['id'];
  const user = caller?.user;
  return {
    args: options.args,
    tool: options.tool,
    tenant: typeof tenant === 'string' ? tenant : null,
    user: user === undefined ? null : Array.isArray(user['roles']) ? user : { ...user, roles: [] },
    context: caller?.context ?? {},
  };
}
