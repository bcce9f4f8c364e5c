/** The pieces as one array: the piece itself when there is one, else a copy. */
export function concatBytes(pieces: readonly Uint8Array[]): Uint8Array {
  if (pieces.length === 1 && pieces[0] !== undefined) return pieces[0];
  const out = new Uint8Array(pieces.reduce((size, piece) => size + piece.length, 0));
  let at = 0;
  for (const piece of pieces) {
    out.set(piece, at);
    at += piece.length;
  }
  return out;
}
