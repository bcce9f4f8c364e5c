import { copyAsJson, type ToolPin } from '../../core/index.ts';

/**
 * MemoryRunStore's tool pins, kept as copies: every read is a fresh copy,
 * exactly what was written after a JSON round trip, as the SQL stores give.
 */
export class MemoryToolPins {
  /** Keyed by pinKey. */
  readonly #pins = new Map<string, ToolPin>();

  list(): ToolPin[] {
    return [...this.#pins.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, pin]) => copyAsJson(pin));
  }

  /** No await inside: of two calls for one key, the first one's pin is kept. */
  pinIfNew(pin: ToolPin): ToolPin {
    const key = pinKey(pin);
    let kept = this.#pins.get(key);
    if (kept === undefined) {
      kept = storedPin(pin);
      this.#pins.set(key, kept);
    }
    return copyAsJson(kept);
  }

  replace(pin: ToolPin): void {
    this.#pins.set(pinKey(pin), storedPin(pin));
  }
}

/** NUL keeps server and tool from running into each other; the keys sort by server, then tool. */
function pinKey(pin: ToolPin): string {
  return `${pin.server}\u0000${pin.tool}`;
}

/** Only the fields of a pin (a caller's extra properties are not kept), copied as JSON would. */
function storedPin(pin: ToolPin): ToolPin {
  const { server, tool, fingerprint, definition, pinnedAt, acceptedBy } = pin;
  return copyAsJson({ server, tool, fingerprint, definition, pinnedAt, acceptedBy });
}
