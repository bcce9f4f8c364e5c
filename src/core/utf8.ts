/**
 * Strict UTF-8 for bytes from outside (request bodies): a byte sequence that
 * is not UTF-8 is refused with where it is, never decoded to U+FFFD and
 * stored as if the client had sent that character.
 */

export type Utf8Decoded = { ok: true; text: string } | { ok: false; offset: number; byte: number };

const strict = new TextDecoder('utf-8', { fatal: true });

/**
 * The text of `bytes` (a leading byte-order mark dropped), or the offset and value of the first byte that does not
 * belong.
 */
export function decodeUtf8(bytes: Uint8Array): Utf8Decoded {
  try {
    return { ok: true, text: strict.decode(bytes) };
  } catch {
    // The decoder says only that the input is not UTF-8: find where, for the message.
    const offset = invalidUtf8Offset(bytes);
    return { ok: false, offset, byte: bytes[offset] ?? 0 };
  }
}

/**
 * Where the first ill-formed sequence starts (Unicode table 3-7: no overlong
 * forms, no surrogates, nothing past U+10FFFF); a sequence cut short by the
 * end counts from its first byte.
 */
function invalidUtf8Offset(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const lead = bytes[i] ?? 0;
    if (lead < 0x80) {
      i += 1;
      continue;
    }
    const [length, low, high] =
      lead >= 0xc2 && lead <= 0xdf
        ? [2, 0x80, 0xbf]
        : lead === 0xe0
          ? [3, 0xa0, 0xbf]
          : lead === 0xed
            ? [3, 0x80, 0x9f]
            : lead >= 0xe1 && lead <= 0xef
              ? [3, 0x80, 0xbf]
              : lead === 0xf0
                ? [4, 0x90, 0xbf]
                : lead === 0xf4
                  ? [4, 0x80, 0x8f]
                  : lead >= 0xf1 && lead <= 0xf3
                    ? [4, 0x80, 0xbf]
                    : [0, 0, 0];
    if (length === 0) return i;
    // The second byte has the narrower range; the ones after it are plain continuation bytes.
    for (let k = 1; k < length; k += 1) {
      const next = bytes[i + k];
      if (next === undefined) return i;
      if (k === 1 ? next < low || next > high : next < 0x80 || next > 0xbf) return i;
    }
    i += length;
  }
  return bytes.length;
}
