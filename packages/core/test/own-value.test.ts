import { describe, expect, it } from 'vitest';
import { ownValue } from '../src/own-value';

describe('ownValue: a table read with a key from outside', () => {
  const TABLE: Readonly<Record<string, string>> = { 'application/pdf': 'pdf', BDT101: 'not_found' };

  it('gives the entries of the table', () => {
    expect(ownValue(TABLE, 'application/pdf')).toBe('pdf');
    expect(ownValue(TABLE, 'BDT101')).toBe('not_found');
  });

  it('gives nothing for a missing key, null, or a name every object inherits', () => {
    for (const key of [
      'text/html',
      null,
      undefined,
      'constructor',
      'toString',
      '__proto__',
      'hasOwnProperty',
      'valueOf',
    ])
      expect(ownValue(TABLE, key)).toBeUndefined();
  });
});
