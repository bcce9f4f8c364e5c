import { ToolgateError } from '../core/errors.ts';

export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** One route: `path` uses OpenAPI's `{param}` syntax, so the document and the table agree. */
export interface Route<H> {
  method: HttpMethod;
  path: string;
  /** false: answered without an API key (health checks, the OpenAPI document). */
  auth: boolean;
  /** How its errors are written: toolgate's `{error: {code, message}}` (default), or OpenAI's (OpenAI-compatible). */
  errorShape?: 'toolgate' | 'openai';
  handler: H;
}

export type RouteMatch<H> =
  | { kind: 'found'; route: Route<H>; params: Record<string, string> }
  | { kind: 'method_not_allowed'; allow: HttpMethod[] }
  | { kind: 'not_found' };

/** A tiny method + path matcher: literal segments and `{param}` segments, nothing else. */
export function matchRoute<H>(routes: readonly Route<H>[], method: string, pathname: string): RouteMatch<H> {
  const segments = pathname.split('/');
  const allow: HttpMethod[] = [];
  for (const route of routes) {
    const params = matchPath(route.path, segments);
    if (params === undefined) continue;
    if (route.method === method) return { kind: 'found', route, params };
    if (!allow.includes(route.method)) allow.push(route.method);
  }
  return allow.length > 0 ? { kind: 'method_not_allowed', allow } : { kind: 'not_found' };
}

function matchPath(pattern: string, segments: readonly string[]): Record<string, string> | undefined {
  const parts = pattern.split('/');
  if (parts.length !== segments.length) return undefined;
  const params: Record<string, string> = {};
  for (const [i, part] of parts.entries()) {
    const segment = segments[i] ?? '';
    if (part.startsWith('{') && part.endsWith('}')) {
      if (segment === '') return undefined;
      params[part.slice(1, -1)] = decodeSegment(segment);
    } else if (part !== segment) {
      return undefined;
    }
  }
  return params;
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new ToolgateError('usage', `malformed percent-encoding in path segment "${segment}"`);
  }
}
