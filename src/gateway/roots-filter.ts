import { escapeRegExp } from '../core/index.ts';

/** At most this many roots go upstream: a client's list is not trusted to be small. */
const MAX_ROOTS = 100;

/**
 * The client's roots a server is shown under `gateway.roots`: each pattern is a URI in which `*` stands for any
 * characters but `/` and `**` for any characters; a pattern without `*` matches that URI and everything under it.
 * No patterns: the roots unchanged.
 */
export function filterRoots<R extends { uri: string }>(
  roots: readonly R[],
  patterns: readonly string[] | undefined,
): R[] {
  const bounded = roots.slice(0, MAX_ROOTS);
  if (patterns === undefined) return bounded;
  const matchers = patterns.map(rootMatcher);
  return bounded.filter((root) => matchers.some((matches) => matches(root.uri)));
}

function rootMatcher(pattern: string): (uri: string) => boolean {
  if (!pattern.includes('*')) {
    const base = pattern.endsWith('/') ? pattern : `${pattern}/`;
    return (uri) => uri === pattern || uri.startsWith(base);
  }
  const source = pattern
    .split('**')
    .map((part) => part.split('*').map(escapeRegExp).join('[^/]*'))
    .join('.*');
  const regexp = new RegExp(`^${source}$`);
  return (uri) => regexp.test(uri);
}
