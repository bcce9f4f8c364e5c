/**
 * A value worked out once per schema object and root schema (the root
 * resolves its `$ref`s), then remembered for as long as both live. Schemas
 * are treated as immutable, as the validator does: a tool's schema is looked
 * at for every call to it. `make` may return undefined; that is remembered too.
 */
export class PerSchema<T> {
  readonly #byNode = new WeakMap<object, WeakMap<object, { value: T }>>();

  get(node: object, root: object, make: () => T): T {
    let byRoot = this.#byNode.get(node);
    if (byRoot === undefined) {
      byRoot = new WeakMap();
      this.#byNode.set(node, byRoot);
    }
    let known = byRoot.get(root);
    if (known === undefined) {
      known = { value: make() };
      byRoot.set(root, known);
    }
    return known.value;
  }
}
