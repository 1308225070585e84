/**
 * World records are shared between calls (no copy per request): they are frozen so that a
 * caller trimming a payload (Basic permissions) must build a new object instead of corrupting
 * the world for every later request.
 */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value as Record<string, unknown>)) deepFreeze(child);
  }
  return value;
}
