/**
 * `chainOrder` (src/store/balance-chain.ts), the order of one instant's rows by their running
 * balances that the exports write and LEDGERBAL and the report's anchor end at. Each row is
 * [id, amount, balance after] in whole units.
 */
import { describe, expect, it } from 'vitest';
import { chainEnd, chainOrder } from '../../src/store/balance-chain';

type Row = [string, number, number];
const units = ([, amount, after]: Row) => ({ amount: BigInt(amount), after: BigInt(after) });
const ids = (rows: Row[], prior: number | null = null) =>
  chainOrder(rows, units, prior === null ? null : BigInt(prior)).map(([id]) => id);

describe('chainOrder', () => {
  it('orders a chain whatever the given order, from the balance before', () => {
    expect(
      ids(
        [
          ['c', -1, 7],
          ['a', -2, 10],
          ['b', -2, 8],
        ],
        12,
      ),
    ).toEqual(['a', 'b', 'c']);
  });

  it('puts a payment and its reversal in where the walk passes their balance, beside another row from it', () => {
    // From 100: a loop 100 → 90 → 100, and 100 → 95. Either order of the ids ends at 95.
    expect(
      ids(
        [
          ['p', -5, 95],
          ['x', -10, 90],
          ['r', 10, 100],
        ],
        100,
      ),
    ).toEqual(['x', 'r', 'p']);
    expect(
      ids(
        [
          ['x', -10, 90],
          ['r', 10, 100],
          ['p', -5, 95],
        ],
        100,
      ),
    ).toEqual(['x', 'r', 'p']);
    expect(
      chainEnd(
        [
          ['p', -5, 95],
          ['x', -10, 90],
          ['r', 10, 100],
        ],
        units,
        100n,
      )?.[0],
    ).toBe('p');
  });

  it('a row served twice (the same step again) follows the chain, in the given order', () => {
    expect(
      ids(
        [
          ['t', -5, 95],
          ['t-dup', -5, 95],
        ],
        100,
      ),
    ).toEqual(['t', 't-dup']);
    expect(
      ids(
        [
          ['t', -5, 95],
          ['t-dup', -5, 95],
          ['u', -1, 94],
        ],
        100,
      ),
    ).toEqual(['t', 'u', 't-dup']);
  });

  it('passes over a balance before that no row continues; a break starts a second walk', () => {
    // 50 is no row's start: the chain starts where more rows leave than reach (10).
    expect(
      ids(
        [
          ['b', -2, 8],
          ['a', -2, 10],
          ['c', -1, 7],
        ],
        50,
      ),
    ).toEqual(['a', 'b', 'c']);
    // Two chains with a gap between them: each whole, the one that starts the instant first.
    expect(
      ids(
        [
          ['y', -1, 4],
          ['a', -2, 10],
          ['x', -1, 5],
          ['b', -1, 9],
        ],
        12,
      ),
    ).toEqual(['a', 'b', 'x', 'y']);
  });

  it('a loop alone: from the balance before when given, else from the first row', () => {
    expect(
      ids(
        [
          ['b', 10, 110],
          ['a', -10, 100],
        ],
        100,
      ),
    ).toEqual(['b', 'a']);
    expect(
      ids(
        [
          ['b', 10, 110],
          ['a', -10, 100],
        ],
        110,
      ),
    ).toEqual(['a', 'b']);
    expect(
      ids([
        ['a', -10, 100],
        ['b', 10, 110],
      ]),
    ).toEqual(['a', 'b']);
  });
});
