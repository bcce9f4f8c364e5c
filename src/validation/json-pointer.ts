/** JSON pointers (RFC 6901), the path format of every issue and normalisation. */

export function escapePointerSegment(segment: string | number): string {
  return String(segment).replaceAll('~', '~0').replaceAll('/', '~1');
}

export function appendPointer(pointer: string, segment: string | number): string {
  return `${pointer}/${escapePointerSegment(segment)}`;
}

export function pointerSegments(pointer: string): string[] {
  if (pointer === '' || pointer === '#') return [];
  const body = pointer.startsWith('#') ? pointer.slice(1) : pointer;
  return body
    .split('/')
    .slice(1)
    .map((s) => decodeURIComponentSafe(s).replaceAll('~1', '/').replaceAll('~0', '~'));
}

/** `#/$defs/A%20B` style fragments are URI-encoded; plain pointers never fail on a stray '%'. */
function decodeURIComponentSafe(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * A pointer as a field name a model understands: '/items/0/name' → 'items[0].name',
 * '' → '(arguments)'.
 */
export function fieldName(pointer: string): string {
  const segments = pointerSegments(pointer);
  if (segments.length === 0) return '(arguments)';
  let out = '';
  for (const segment of segments) {
    if (/^(0|[1-9]\d*)$/.test(segment)) out += `[${segment}]`;
    else out += out === '' ? segment : `.${segment}`;
  }
  return out;
}
