import { parseJson, type ToolPin } from '../../core/index.ts';

/**
 * MemoryRunStore's tool pins, kept as JSON text: every read is a fresh copy,
 * exactly what was written, as the SQL stores give.
 */
export class MemoryToolPins {
  /** Keyed by pinKey. */
  readonly #pins = new Map<string, string>();

  list(): ToolPin[] {
    return [...this.#pins.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, text]) => parseJson(text) as ToolPin);
  }

  /** No await inside: of two calls for one key, the first one's pin is kept. */
  pinIfNew(pin: ToolPin): ToolPin {
    const key = pinKey(pin);
    const existing = this.#pins.get(key);
    if (existing !== undefined) return parseJson(existing) as ToolPin;
    const text = pinText(pin);
    this.#pins.set(key, text);
    return parseJson(text) as ToolPin;
  }

  replace(pin: ToolPin): void {
    this.#pins.set(pinKey(pin), pinText(pin));
  }
}

/** NUL keeps server and tool from running into each other; the keys sort by server, then tool. */
function pinKey(pin: ToolPin): string {
  return `${pin.server}\u0000${pin.tool}`;
}

/** Only the fields of a pin: a caller's extra properties are not kept. */
function pinText(pin: ToolPin): string {
  const { server, tool, fingerprint, definition, pinnedAt, acceptedBy } = pin;
  return JSON.stringify({ server, tool, fingerprint, definition, pinnedAt, acceptedBy });
}
