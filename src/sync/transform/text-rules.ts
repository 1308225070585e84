/**
 * Text both dialects can store. PostgreSQL's `text` cannot hold U+0000 (NUL) where SQLite's can,
 * so a record with a NUL in any of its texts (a value or a key, at any depth) is kept aside as a
 * reject on both dialects (sync/answer.ts), and the two databases hold the same rows. Pure.
 */

const NUL = '\u0000';

/** Where the first text of `value` holding a NUL is (`Nickname`, `Address[0].AddressLine[1]`), or null. */
export function nulTextPath(value: unknown, path = ''): string | null {
  if (typeof value === 'string') return value.includes(NUL) ? path || '(value)' : null;
  if (typeof value !== 'object' || value === null) return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = nulTextPath(value[i], `${path}[${i}]`);
      if (found !== null) return found;
    }
    return null;
  }
  for (const [key, item] of Object.entries(value)) {
    const at = path ? `${path}.${escapeNul(key)}` : escapeNul(key);
    if (key.includes(NUL)) return at;
    const found = nulTextPath(item, at);
    if (found !== null) return found;
  }
  return null;
}

/** The reason a reject with a NUL carries (the same words on both dialects). */
export function nulReason(path: string): string {
  return `${path} holds a NUL character (U+0000), which PostgreSQL cannot store as text`;
}

/** Text with each NUL written as the six characters `\u0000`: storable, and still visible. */
export function escapeNul(text: string): string {
  return text.includes(NUL) ? text.replaceAll(NUL, '\\u0000') : text;
}
