/**
 * Text both dialects can store. PostgreSQL's `text` cannot hold U+0000 (NUL) where SQLite's can,
 * so a record with a NUL in any of its texts (a value or a key, at any depth) is kept aside as a
 * reject on both dialects (sync/answer.ts), and the two databases hold the same rows. Pure.
 */

const NUL = '\u0000';

/** Where the first text of `value` holding a NUL is (`Nickname`, `Address[0].AddressLine[1]`), or null. */
export function nulTextPath(value: unknown): string | null {
  // Every record of every page passes here: a walk that allocates nothing, and the path (a
  // string per key) built only for the rare record that holds a NUL.
  return holdsNul(value) ? pathOfNul(value, '') : null;
}

function holdsNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes(NUL);
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) {
    for (const item of value) if (holdsNul(item)) return true;
    return false;
  }
  const record = value as Record<string, unknown>;
  for (const key in record) if (key.includes(NUL) || holdsNul(record[key])) return true;
  return false;
}

function pathOfNul(value: unknown, path: string): string | null {
  if (typeof value === 'string') return value.includes(NUL) ? path || '(value)' : null;
  if (typeof value !== 'object' || value === null) return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = pathOfNul(value[i], `${path}[${i}]`);
      if (found !== null) return found;
    }
    return null;
  }
  for (const [key, item] of Object.entries(value)) {
    const at = path ? `${path}.${escapeNul(key)}` : escapeNul(key);
    if (key.includes(NUL)) return at;
    const found = pathOfNul(item, at);
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
