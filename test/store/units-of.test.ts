/**
 * unitsOf (src/store/dialect-sql.ts) on SQLite: the quick path (the digits without the point as
 * one integer, scaled) gives the integer toUnits gives, for every form of decimal text the wire
 * allows (no point, 1 to 5 fraction digits, signs, leading zeros, values past 2^53 units), and
 * NULL stays NULL.
 */
import Database from 'better-sqlite3';
import { sql } from 'drizzle-orm';
import { SQLiteSyncDialect } from 'drizzle-orm/sqlite-core';
import { describe, expect, it } from 'vitest';
import { toUnits } from '@bankdata/core/money';
import { unitsOf } from '../../src/store/dialect-sql';

describe('unitsOf on SQLite', () => {
  it('reads every decimal text as toUnits does, exactly', () => {
    const db = new Database(':memory:');
    db.defaultSafeIntegers(true);
    try {
      const texts = ['0', '-0', '7', '-7', '0.1', '-0.5', '0.00001', '-0.00001', '12.3', '-12.34', '007.50', '100'];
      texts.push('92233720368.54775', '-92233720368.54775', '90071992547409.93', '0.99999', '-1.10000');
      let seed = 33;
      const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
      for (let i = 0; i < 500; i++) {
        const whole = String(next() % 10 ** (1 + (next() % 9)));
        const digits = next() % 6;
        const fraction = digits === 0 ? '' : `.${String(next()).padStart(digits, '0').slice(-digits)}`;
        texts.push(`${next() % 2 === 0 ? '-' : ''}${whole}${fraction}`);
      }
      const { sql: query } = new SQLiteSyncDialect().sqlToQuery(
        sql`SELECT ${unitsOf('sqlite', sql.raw('x'))} AS units FROM (SELECT ? AS x)`,
      );
      const statement = db.prepare(query);
      for (const text of texts) {
        const row = statement.get(...Array<string>(query.split('?').length - 1).fill(text)) as { units: bigint };
        expect(row.units, text).toBe(toUnits(text));
      }
      const nullRow = statement.get(...Array<null>(query.split('?').length - 1).fill(null)) as { units: bigint | null };
      expect(nullRow.units).toBeNull();
    } finally {
      db.close();
    }
  });
});
