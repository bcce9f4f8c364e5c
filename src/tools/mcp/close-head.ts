/**
 * The kept head of a message too large to read whole, closed into valid
 * JSON: a text cut mid-string keeps what was read of it; anything else cut
 * half-way (a key, a number, a dangling comma) is dropped back to the last
 * complete value. jsonrepair would do the same but takes seconds on a head
 * of a few megabytes (it rebuilds strings character by character); the
 * scanner already knows where the head can be closed.
 */

const BACKSLASH = 0x5c;
const LETTER_U = 0x75;

/** Where the scanner was when the head ended. */
export interface HeadCut {
  /** Inside a string value (not a key): what was read of it is kept. */
  inValueString: boolean;
  /** Offset after the last complete value, opened container or comma-less point. */
  lastSafe: number;
  /** The containers open there, outermost first (true: an object). */
  open: readonly boolean[];
}

/** The head as a JSON value, or undefined when it cannot be closed (it should always can; nothing is assumed). */
export function closeHead(head: Uint8Array, cut: HeadCut): unknown {
  let end = cut.lastSafe;
  let suffix = '';
  if (cut.inValueString) {
    end = openEscapeStart(head, head.length);
    suffix = '"';
  }
  // A character cut short at the end is left out (the decoder holds back an incomplete sequence when streaming).
  const text = new TextDecoder().decode(head.subarray(0, end), { stream: true });
  for (let i = cut.open.length - 1; i >= 0; i -= 1) suffix += cut.open[i] === true ? '}' : ']';
  try {
    return JSON.parse(text + suffix);
  } catch {
    return undefined;
  }
}

/**
 * Where an escape left open at `end` starts (`\` alone, or `\u` with fewer
 * than four hex digits), or `end`. Only the last six bytes can hold one; a
 * backslash is an escape's start when the run of backslashes it ends is odd.
 */
function openEscapeStart(bytes: Uint8Array, end: number): number {
  for (let at = end - 1; at >= Math.max(0, end - 6); at -= 1) {
    if (bytes[at] !== BACKSLASH) continue;
    let run = 1;
    while (at - run >= 0 && bytes[at - run] === BACKSLASH) run += 1;
    // The second of a pair: an escaped backslash, complete.
    if (run % 2 === 0) return end;
    const complete = bytes[at + 1] === LETTER_U ? at + 6 <= end : at + 2 <= end;
    return complete ? end : at;
  }
  return end;
}
