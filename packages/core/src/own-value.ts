/**
 * A lookup table read with a key from outside (a bank's code, content type or subtype): its own
 * entries only. A plain `table[key]` also finds what every object inherits, so a code named
 * `constructor` or `__proto__` would read as a known one.
 */
export function ownValue<V>(table: Readonly<Record<string, V>>, key: string | null | undefined): V | undefined {
  return key !== null && key !== undefined && Object.hasOwn(table, key) ? table[key] : undefined;
}
