/**
 * A request body's tool definitions, written from JSON text kept per
 * definitions array rather than serialised at every model call: a run's tool
 * catalog offers the same array at every step, definitions are not changed
 * once made, and with many tools or large schemas they are most of a body.
 */
import type { ModelToolDefinition } from '../../core/ports/model-adapter.ts';

export class ToolsJson {
  readonly #texts = new WeakMap<readonly ModelToolDefinition[], string>();
  readonly #wireTool: (tool: ModelToolDefinition) => unknown;

  /** `wireTool`: one definition as the provider's API takes it. */
  constructor(wireTool: (tool: ModelToolDefinition) => unknown) {
    this.#wireTool = wireTool;
  }

  /** The definitions as the API takes them, as objects. */
  objects(tools: readonly ModelToolDefinition[]): unknown[] {
    return tools.map(this.#wireTool);
  }

  /**
   * `body` (built without `tools`) as JSON text with `tools` added last, its
   * text serialised at the first request that offers this array.
   */
  bodyText(body: Record<string, unknown>, tools: readonly ModelToolDefinition[]): string {
    let json = this.#texts.get(tools);
    if (json === undefined) {
      json = JSON.stringify(this.objects(tools));
      this.#texts.set(tools, json);
    }
    const rest = JSON.stringify(body);
    return rest === '{}' ? `{"tools":${json}}` : `${rest.slice(0, -1)},"tools":${json}}`;
  }
}

/**
 * A provider's whole request body as JSON text: `build(false)` is the body
 * without `tools`, `build(true)` with them. The tools' text is kept per
 * definitions array when `offered` (the request offers them) and `extraBody`
 * does not set `tools` itself; otherwise the body is written whole.
 */
export function bodyText(input: {
  tools: ToolsJson;
  definitions: readonly ModelToolDefinition[];
  offered: boolean;
  extraBody: Record<string, unknown> | undefined;
  build: (withTools: boolean) => Record<string, unknown>;
}): string {
  const extraSetsTools = input.extraBody !== undefined && Object.hasOwn(input.extraBody, 'tools');
  if (!input.offered || extraSetsTools) return JSON.stringify(input.build(true));
  return input.tools.bodyText(input.build(false), input.definitions);
}
