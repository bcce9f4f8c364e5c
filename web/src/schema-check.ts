// The checks the approval form runs before it sends edited arguments: the
// common JSON Schema keywords, with messages that say where and what. The
// server validates again with its full validator; this spares a round trip.

export interface SchemaIssue {
  path: string;
  message: string;
}

type Schema = Record<string, unknown>;

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function matchesType(value: unknown, type: string): boolean {
  const actual = typeOf(value);
  return actual === type || (type === 'number' && actual === 'integer');
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function checkAgainstSchema(value: unknown, schema: unknown, path = ''): SchemaIssue[] {
  if (!isObject(schema)) return [];
  const s = schema as Schema;
  const at = path === '' ? '(arguments)' : path;
  const issues: SchemaIssue[] = [];
  const types = typeof s['type'] === 'string' ? [s['type']] : Array.isArray(s['type']) ? (s['type'] as string[]) : [];
  if (types.length > 0 && !types.some((t) => matchesType(value, t))) {
    return [{ path: at, message: `must be ${types.join(' or ')}, got ${typeOf(value)}` }];
  }
  if (Array.isArray(s['enum']) && !(s['enum'] as unknown[]).some((e) => JSON.stringify(e) === JSON.stringify(value))) {
    issues.push({
      path: at,
      message: `must be one of ${(s['enum'] as unknown[]).map((e) => JSON.stringify(e)).join(', ')}`,
    });
  }
  if ('const' in s && JSON.stringify(s['const']) !== JSON.stringify(value))
    issues.push({ path: at, message: `must be ${JSON.stringify(s['const'])}` });
  if (typeof value === 'number') {
    if (typeof s['minimum'] === 'number' && value < s['minimum'])
      issues.push({ path: at, message: `must be at least ${s['minimum']}` });
    if (typeof s['maximum'] === 'number' && value > s['maximum'])
      issues.push({ path: at, message: `must be at most ${s['maximum']}` });
    if (typeof s['exclusiveMinimum'] === 'number' && value <= s['exclusiveMinimum'])
      issues.push({ path: at, message: `must be more than ${s['exclusiveMinimum']}` });
    if (typeof s['exclusiveMaximum'] === 'number' && value >= s['exclusiveMaximum'])
      issues.push({ path: at, message: `must be less than ${s['exclusiveMaximum']}` });
  }
  if (typeof value === 'string') {
    if (typeof s['minLength'] === 'number' && [...value].length < s['minLength'])
      issues.push({ path: at, message: `must have at least ${s['minLength']} characters` });
    if (typeof s['maxLength'] === 'number' && [...value].length > s['maxLength'])
      issues.push({ path: at, message: `must have at most ${s['maxLength']} characters` });
    if (typeof s['pattern'] === 'string') {
      try {
        if (!new RegExp(s['pattern'], 'u').test(value))
          issues.push({ path: at, message: `must match ${s['pattern']}` });
      } catch {
        // A pattern the browser cannot read is left to the server.
      }
    }
  }
  if (Array.isArray(value)) {
    if (typeof s['minItems'] === 'number' && value.length < s['minItems'])
      issues.push({ path: at, message: `must have at least ${s['minItems']} items` });
    if (typeof s['maxItems'] === 'number' && value.length > s['maxItems'])
      issues.push({ path: at, message: `must have at most ${s['maxItems']} items` });
    if (isObject(s['items']))
      value.forEach((item, i) => issues.push(...checkAgainstSchema(item, s['items'], `${path}[${i}]`)));
  }
  if (isObject(value)) {
    const properties = isObject(s['properties']) ? s['properties'] : {};
    for (const key of Array.isArray(s['required']) ? (s['required'] as string[]) : []) {
      if (!(key in value)) issues.push({ path: path === '' ? key : `${path}.${key}`, message: 'is required' });
    }
    for (const [key, item] of Object.entries(value)) {
      const child = path === '' ? key : `${path}.${key}`;
      if (key in properties) issues.push(...checkAgainstSchema(item, properties[key], child));
      else if (s['additionalProperties'] === false) issues.push({ path: child, message: 'is not a known argument' });
      else if (isObject(s['additionalProperties']))
        issues.push(...checkAgainstSchema(item, s['additionalProperties'], child));
    }
  }
  return issues;
}
