/**
 * The quick path of `utcIso` / `toStoredInstant` and `nzDateOf` (packages/core/src/nz-time.ts) must give
 * exactly what luxon gives (or refuse what luxon refuses), for every shape of instant string,
 * and the NZ date across daylight-saving changes, and `formatNz` the NZ wall time; and `NZ`, the zone with remembered offsets,
 * exactly what luxon's own Pacific/Auckland gives.
 */
import fc from 'fast-check';
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { commonInstantMs } from '../src/instant-text';
import { NZ, NZ_ZONE, formatNz, nzDateOf, utcIso } from '../src/nz-time';
import { DateTimeString } from '../src/schemas';

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** luxon's own answer, or the error text when it refuses. */
function luxonIso(value: string | number): string {
  const dt =
    typeof value === 'number'
      ? DateTime.fromMillis(value, { zone: 'utc' })
      : DateTime.fromISO(value, { setZone: true });
  if (!dt.isValid) return 'invalid';
  return dt.toUTC().toISO({ includeOffset: true, suppressMilliseconds: false }) ?? 'invalid';
}
function ours(value: string | number): string {
  try {
    return utcIso(value);
  } catch {
    return 'invalid';
  }
}

const instantText = fc
  .record({
    year: fc.integer({ min: 1960, max: 2200 }),
    month: fc.integer({ min: 0, max: 13 }),
    day: fc.integer({ min: 0, max: 32 }),
    hour: fc.integer({ min: 0, max: 25 }),
    minute: fc.integer({ min: 0, max: 60 }),
    second: fc.integer({ min: 0, max: 61 }),
    fraction: fc.option(fc.stringMatching(/^\d{1,12}$/), { nil: undefined }),
    zone: fc.oneof(
      fc.constant('Z'),
      fc
        .record({
          sign: fc.constantFrom('+', '-'),
          h: fc.integer({ min: 0, max: 24 }),
          m: fc.integer({ min: 0, max: 60 }),
        })
        .map((o) => `${o.sign}${pad(o.h)}:${pad(o.m)}`),
      fc.constantFrom('', 'z', '+1300', '+13'),
    ),
  })
  .map(
    (p) =>
      `${pad(p.year, 4)}-${pad(p.month)}-${pad(p.day)}T${pad(p.hour)}:${pad(p.minute)}:${pad(p.second)}${p.fraction === undefined ? '' : `.${p.fraction}`}${p.zone}`,
  );

describe('the quick instant path gives what luxon gives', () => {
  it('for instant strings of every shape, valid or not (fast-check, 5,000 runs)', () => {
    fc.assert(
      fc.property(instantText, (text) => {
        expect(ours(text), text).toBe(luxonIso(text));
        // The wire schema's check agrees with luxon on what is a valid date-time.
        if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/.test(text)) {
          expect(DateTimeString.safeParse(text).success, text).toBe(DateTime.fromISO(text, { setZone: true }).isValid);
        }
      }),
      { numRuns: 5_000 },
    );
  });

  it('for the shapes the bank sends, fraction digits past the millisecond dropped as luxon drops them', () => {
    for (const text of [
      '2025-03-02T20:15:00Z',
      '2025-03-03T09:15:00+13:00',
      '2025-04-06T02:30:00+12:00',
      '2025-03-02T20:15:00.29Z',
      '2025-03-02T20:15:00.035+13:00',
      '2025-03-02T20:15:00.1239999-00:30',
      '2024-02-29T23:59:59.999+13:00',
    ]) {
      expect(commonInstantMs(text), text).not.toBeNull();
      expect(utcIso(text), text).toBe(luxonIso(text));
    }
    // A fraction of seventeen 9s or more is a whole second as a double: luxon refuses it.
    for (const text of ['2025-03-02T20:15:59.99999999999999999Z', '2025-03-02T20:15:59.99999999999999999999+13:00']) {
      expect(commonInstantMs(text), text).toBeNull();
      expect(ours(text), text).toBe(luxonIso(text));
      expect(() => formatNz(text), text).toThrow(RangeError);
    }
    // Shapes the quick path leaves to luxon.
    for (const text of [
      '2025-03-02T20:15Z',
      '2025-03-02 20:15:00Z',
      '2025-02-29T00:00:00Z',
      '1969-12-31T23:59:59Z',
      '2025-03-02T24:00:00Z',
    ])
      expect(commonInstantMs(text), text).toBeNull();
  });

  it('for epoch milliseconds', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 253402300799999 }), (ms) => {
        expect(ours(ms)).toBe(luxonIso(ms));
      }),
      { numRuns: 5_000 },
    );
  });

  it('NZ dates of any instant from 1970 to 2100 (a number, a Date, a DateTime), and every quarter hour around each daylight-saving change 2020-2030', () => {
    const luxonNz = (ms: number) => DateTime.fromMillis(ms, { zone: NZ_ZONE }).toISODate();
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4102444800000 }), (ms) => {
        expect(nzDateOf(ms)).toBe(luxonNz(ms));
      }),
      { numRuns: 5_000 },
    );
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4102444800000 }), (ms) => {
        expect(nzDateOf(new Date(ms))).toBe(luxonNz(ms));
        expect(nzDateOf(DateTime.fromMillis(ms, { zone: 'utc' }))).toBe(luxonNz(ms));
      }),
      { numRuns: 1_000 },
    );
    for (let year = 2020; year <= 2030; year += 1) {
      for (const month of [4, 9]) {
        // The weeks the clocks change in: the first Sunday of April (from 31 March UTC: on
        // 1 April 2029 the change is at 14:00 UTC the day before), the last of September.
        const start = DateTime.fromObject(
          { year, month: month === 4 ? 3 : 9, day: month === 4 ? 31 : 23 },
          { zone: 'utc' },
        ).toMillis();
        for (let ms = start; ms < start + 8 * 86_400_000; ms += 15 * 60_000) {
          if (nzDateOf(ms) !== luxonNz(ms)) expect(nzDateOf(ms), new Date(ms).toISOString()).toBe(luxonNz(ms));
          const text = new Date(ms).toISOString();
          if (nzDateOf(text) !== luxonNz(ms)) expect(nzDateOf(text), text).toBe(luxonNz(ms));
        }
      }
    }
  });

  it("NZ, the zone with remembered offsets, is luxon's Pacific/Auckland: offsets, instants and local times across daylight-saving changes 1970-2100", () => {
    const luxons = (ms: number) => DateTime.fromMillis(ms, { zone: NZ_ZONE });
    const ourZone = (ms: number) => DateTime.fromMillis(ms, { zone: NZ });
    const same = (ms: number) => {
      const [a, b] = [ourZone(ms), luxons(ms)];
      if (a.offset !== b.offset || a.toISO() !== b.toISO() || !a.equals(b))
        expect(a.toISO(), new Date(ms).toISOString()).toBe(b.toISO());
    };
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4102444800000 }), (ms) => same(ms)),
      { numRuns: 2_000 },
    );
    // Every hour of the months NZ's clocks change in (on the hour), and the local times of
    // their nights read in the zone (02:00-02:59 skipped in September, 02:00-02:59 twice in April):
    // luxon places them alike.
    for (let year = 1975; year <= 2100; year += 25) {
      for (const month of [3, 4, 9, 10]) {
        const start = DateTime.fromObject({ year, month, day: 1 }, { zone: 'utc' }).toMillis();
        for (let ms = start; ms < start + 31 * 86_400_000; ms += 60 * 60_000) same(ms);
        for (let day = 1; day <= 31; day++) {
          for (const time of ['01:59', '02:00', '02:30', '02:59', '03:00', '03:30', '04:00']) {
            const local = `${year}-${pad(month)}-${pad(day)}T${time}`;
            const [a, b] = [DateTime.fromISO(local, { zone: NZ }), DateTime.fromISO(local, { zone: NZ_ZONE })];
            if (a.isValid !== b.isValid || a.toMillis() !== b.toMillis())
              expect(`${a.toISO()}`, local).toBe(`${b.toISO()}`);
          }
        }
      }
    }
    expect(DateTime.fromISO('2025-04-06T02:30', { zone: NZ }).setZone(NZ_ZONE).zoneName).toBe(NZ_ZONE);
    expect(NZ.equals(DateTime.now().setZone(NZ_ZONE).zone)).toBe(true);
  });

  it('formatNz, the NZ wall time with its offset, as luxon writes it: epoch milliseconds, strings, Dates and DateTimes, with and without milliseconds', () => {
    const luxonFormat = (ms: number) =>
      DateTime.fromMillis(ms, { zone: NZ_ZONE }).toISO({ suppressMilliseconds: true });
    const check = (ms: number) => {
      const expected = luxonFormat(ms);
      for (const value of [ms, new Date(ms), DateTime.fromMillis(ms, { zone: 'utc' }), new Date(ms).toISOString()]) {
        if (formatNz(value) !== expected) expect(formatNz(value), `${String(value)}`).toBe(expected);
      }
    };
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 253402300799999 }), fc.boolean(), (ms, whole) =>
        check(whole ? ms - (ms % 1000) : ms),
      ),
      { numRuns: 2_000 },
    );
    for (let year = 2020; year <= 2030; year += 1) {
      for (const month of [4, 9]) {
        const start = DateTime.fromObject(
          { year, month: month === 4 ? 3 : 9, day: month === 4 ? 31 : 23 },
          { zone: 'utc' },
        ).toMillis();
        for (let ms = start; ms < start + 8 * 86_400_000; ms += 15 * 60_000) check(ms);
      }
    }
    // The last instants of year 9999 in UTC are in year 10000 in NZ: luxon writes those.
    expect(formatNz(253402300799000)).toBe(luxonFormat(253402300799000));
    for (const value of [
      253402300799000,
      new Date(253402300799000),
      DateTime.fromISO('9999-12-31T23:59:59Z'),
      '9999-12-31T23:59:59Z',
    ]) {
      expect(nzDateOf(value), String(value)).toBe('+010000-01-01');
    }
    expect(formatNz('2025-03-02T20:15:00.035+13:00')).toBe('2025-03-02T20:15:00.035+13:00');
    expect(formatNz('2025-06-02T20:15:00Z')).toBe('2025-06-03T08:15:00+12:00');
  });
});
