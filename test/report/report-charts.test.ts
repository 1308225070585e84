/**
 * The report's charts (src/report/charts.ts) drawn alone: what their SVG shows for spans and
 * series the demo's data does not reach.
 */
import { describe, expect, it } from 'vitest';
import { toUnits } from '@bankdata/core/money';
import { balanceChart, flowsChart } from '../../src/report/charts';

/** The text of every <text> element of the chart, in the SVG's order. */
const texts = (svg: string) => [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1] ?? '');

describe('balanceChart', () => {
  it('a one-day period: the axis is NZ dates a day each side of the point (no hours), and the point is drawn', () => {
    for (const size of ['wide', 'narrow'] as const) {
      const svg = balanceChart(
        [{ date: '2026-11-18', units: toUnits('-1959.37') }],
        'NZD',
        { id: `one-${size}`, title: 'one day', description: 'one point' },
        { span: { from: '2026-11-18', to: '2026-11-18' } },
        size,
      );
      const labels = texts(svg);
      expect(
        labels.filter((t) => /\d:\d\d/.test(t)),
        size,
      ).toEqual([]);
      expect(labels, size).toEqual(expect.arrayContaining(['2026-11-17', '2026-11-18', '2026-11-19']));
      // The point's symbol: a line of one point draws nothing.
      expect(svg, size).toMatch(/<path [^>]*ecmeta_data_index="0"/);
    }
  });

  it('a two-day period keeps a tick per day, never hours', () => {
    const svg = balanceChart(
      [
        { date: '2026-11-18', units: toUnits('10.00') },
        { date: '2026-11-19', units: toUnits('12.00') },
      ],
      'NZD',
      { id: 'two', title: 'two days', description: 'two points' },
      { span: { from: '2026-11-18', to: '2026-11-19' } },
    );
    const labels = texts(svg);
    expect(labels.filter((t) => /\d:\d\d/.test(t))).toEqual([]);
    expect(labels).toEqual(expect.arrayContaining(['2026-11-18', '2026-11-19']));
  });
});

describe('flowsChart', () => {
  const flows = [{ month: '2026-10', inUnits: toUnits('120.00'), outUnits: 0n }];
  it('a credits-only account: the legend lists money in alone', () => {
    const svg = flowsChart(flows, 'NZD', { id: 'in', title: 'in', description: 'in' }, 'wide', 'Credit');
    expect(texts(svg)).toContain('Money in');
    expect(texts(svg)).not.toContain('Money out');
  });
  it('a debits-only account: money out alone; a complete one: both', () => {
    const out = flowsChart(flows, 'NZD', { id: 'out', title: 'out', description: 'out' }, 'wide', 'Debit');
    expect(texts(out)).toContain('Money out');
    expect(texts(out)).not.toContain('Money in');
    const both = flowsChart(flows, 'NZD', { id: 'both', title: 'both', description: 'both' }, 'wide');
    expect(texts(both)).toEqual(expect.arrayContaining(['Money in', 'Money out']));
  });
});
