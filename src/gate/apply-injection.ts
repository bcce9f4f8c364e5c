import type { JsonObject, JsonValue } from '../core/json.ts';
import { checkJsonShape } from '../core/json-shape.ts';
import { setJsonKey } from '../core/set-json-key.ts';
import { cloneJson } from '../validation/index.ts';

/**
 * Values templates can read. `{{user.id}}` reads `user.id`, `{{tenant.id}}`
 * reads `tenant.id`, `{{context.a.b}}` reads `context.a.b`.
 */
export interface InjectionContext {
  user?: JsonObject;
  tenant?: JsonObject;
  context?: JsonObject;
}

export interface InjectionInput {
  arguments: JsonObject;
  /** Argument name → template, from the resolved tool policy. */
  inject: Record<string, string>;
  context: InjectionContext;
}

export interface InjectedArgument {
  key: string;
  value: JsonValue;
  /** The model had sent a value for this key; it was replaced. */
  overridden: boolean;
  modelValue?: JsonValue;
}

export interface InjectionResult {
  arguments: JsonObject;
  injected: InjectedArgument[];
  /** Context paths a template needed but the request did not provide ("user.id"); the caller must deny the call. */
  missing: string[];
}

const TEMPLATE = /\{\{\s*([^{}\s]+)\s*\}\}/g;

/**
 * Fills server-side arguments the model never sees. A template that is the
 * whole string keeps the value's JSON type (`"{{context.limit}}"` → 50); one
 * embedded in text is interpolated (`"acct-{{user.id}}"`); a string without
 * templates is a literal. Whatever the model sent for an injected key is
 * overwritten and recorded. A missing value (absent, null or empty string) is
 * never replaced by "": the key is removed and the path listed in `missing`.
 * So is a value past the JSON shape limits (too deep, too large, a non-finite
 * number): it cannot be sent, so the call must not go ahead without it.
 */
export function applyInjection(input: InjectionInput): InjectionResult {
  const args = cloneJson(input.arguments);
  const injected: InjectedArgument[] = [];
  const missing: string[] = [];
  for (const [key, template] of Object.entries(input.inject)) {
    const rendered = render(template, input.context);
    const hadValue = Object.hasOwn(args, key);
    const modelValue = hadValue ? args[key] : undefined;
    if (rendered.missing.length > 0) {
      for (const path of rendered.missing) if (!missing.includes(path)) missing.push(path);
      delete args[key];
      continue;
    }
    setJsonKey(args, key, rendered.value);
    const entry: InjectedArgument = { key, value: rendered.value, overridden: hadValue };
    if (modelValue !== undefined) entry.modelValue = modelValue;
    injected.push(entry);
  }
  return { arguments: args, injected, missing };
}

function render(template: string, context: InjectionContext): { value: JsonValue; missing: string[] } {
  const whole = /^\{\{\s*([^{}\s]+)\s*\}\}$/.exec(template);
  if (whole !== null) {
    const path = whole[1] ?? '';
    const value = lookup(context, path);
    return value === undefined ? { value: '', missing: [path] } : { value: cloneJson(value), missing: [] };
  }
  const missing: string[] = [];
  const value = template.replace(TEMPLATE, (_match, path: string) => {
    const found = lookup(context, path);
    if (found === undefined) {
      missing.push(path);
      return '';
    }
    return typeof found === 'string' ? found : JSON.stringify(found);
  });
  return { value, missing };
}

/** A present, non-empty value within the shape limits at a dotted path, or undefined. */
function lookup(context: InjectionContext, path: string): JsonValue | undefined {
  const [root, ...rest] = path.split('.');
  if (root === undefined || !isRoot(root)) return undefined;
  let node: JsonValue | undefined = context[root];
  for (const segment of rest) {
    if (node === null || typeof node !== 'object' || Array.isArray(node) || !Object.hasOwn(node, segment))
      return undefined;
    node = node[segment];
  }
  if (node === undefined || node === null || node === '') return undefined;
  return checkJsonShape(node) === undefined ? node : undefined;
}

function isRoot(name: string): name is keyof InjectionContext {
  return name === 'user' || name === 'tenant' || name === 'context';
}
