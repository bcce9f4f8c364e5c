/**
 * Sets an own property even for the key "__proto__", which a model can send
 * and which plain assignment would turn into a prototype change.
 */
export function setJsonKey<T>(target: Record<string, T>, key: string, value: T): void {
  if (key === '__proto__')
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}
