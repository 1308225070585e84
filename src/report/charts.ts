/**
 * The report's charts: Apache ECharts rendered to SVG at build time (server-side rendering, no
 * script in the page), each with a <title> and <desc> and role="img" so that a screen reader
 * announces it; the table beside it carries the exact figures. Coordinates are doubles (drawing
 * only); every figure a person reads is formatted from exact units.
 */
import * as echarts from 'echarts/core';
import { BarChart, LineChart, type BarSeriesOption, type LineSeriesOption } from 'echarts/charts';
import {
  AriaComponent,
  GridComponent,
  LegendComponent,
  MarkLineComponent,
  type AriaComponentOption,
  type GridComponentOption,
  type LegendComponentOption,
  type MarkLineComponentOption,
} from 'echarts/components';
import { SVGRenderer } from 'echarts/renderers';
import { formatUnitsGrouped, toChartNumber, type Units } from '@bankdata/core/money';
import { minorUnitExponent } from '@bankdata/core/money';

// Only the parts the charts use (ECharts' own tree-shaken form): the whole library is three times
// the code to load, and the report's start-up and peak memory with it (docs/benchmarks.md
// "Report and check").
echarts.use([LineChart, BarChart, GridComponent, LegendComponent, MarkLineComponent, AriaComponent, SVGRenderer]);
type ChartOption = echarts.ComposeOption<
  | LineSeriesOption
  | BarSeriesOption
  | GridComponentOption
  | LegendComponentOption
  | MarkLineComponentOption
  | AriaComponentOption
>;

export const COLOURS = {
  balance: '#1d4f91',
  moneyIn: '#1e7b34',
  moneyOut: '#b3261e',
  grid: '#d0d5dd',
  text: '#1f2933',
} as const;
/**
 * The two sizes every chart is drawn at; html.ts shows one by a CSS media query (the page has no
 * script). The narrow one is drawn about as wide as a 390 px phone shows it, with larger text, so
 * that its axis text is rendered at 11 px or more (test/report/report.test.ts measures it).
 */
export const SIZES = {
  wide: { width: 760, height: 280, fontSize: 12, left: 90 },
  narrow: { width: 320, height: 240, fontSize: 13, left: 62 },
} as const;
export type ChartSize = keyof typeof SIZES;

export interface ChartText {
  /** Unique in the page: ids of the title and description. */
  id: string;
  title: string;
  description: string;
}

export interface BalancePoint {
  /** NZ date YYYY-MM-DD. */
  date: string;
  units: Units;
}

/** A continuity break drawn on a balance chart: its NZ dates, and the link to its row in the breaks table. */
export interface BreakMark {
  from: string;
  to: string;
  /** Fragment of the breaks table's row (`#break-3`). */
  href: string;
  /** Short label drawn on the chart ("1"), and the link's accessible text. */
  label: string;
  description: string;
}

export interface BalanceChartOptions {
  /** NZ dates of the chart's first and last day (the axis spans them even where no line is drawn). */
  span: { from: string; to: string };
  breaks?: readonly BreakMark[];
}

export interface FlowPoint {
  month: string;
  inUnits: Units;
  outUnits: Units;
}

/**
 * A step line of the balance at each NZ day's end, over `span`: days without a point have no line
 * (html.ts leaves out the days where the data cannot show a true balance). Each break is a shaded
 * band over its dates, numbered, and a link to its row in the breaks table.
 */
export function balanceChart(
  points: readonly BalancePoint[],
  currency: string,
  text: ChartText,
  options: BalanceChartOptions,
  size: ChartSize = 'wide',
): string {
  const dims = SIZES[size];
  const breaks = options.breaks ?? [];
  // A span of a day or two (a one-day period) would be widened by ECharts to hours around its
  // points, its ticks 06:00, 12:00…: it is padded a day each side with a tick per day, each NZ
  // date written whole (room kept at the right for the last one), and its points drawn (a single
  // point draws no line).
  const from = utcMidnight(options.span.from);
  const to = utcMidnight(options.span.to);
  const short = to - from < 2 * DAY_MS;
  const right = short ? 40 : size === 'narrow' ? 12 : 24;
  const grid = { left: dims.left, right, top: breaks.length ? 30 : 24, bottom: 40 };
  return render(
    text,
    size,
    {
      grid,
      xAxis: {
        type: 'time',
        min: short ? from - DAY_MS : from,
        max: short ? to + DAY_MS : to,
        ...(short ? { minInterval: DAY_MS, maxInterval: DAY_MS } : {}),
        axisLabel: {
          color: COLOURS.text,
          hideOverlap: true,
          fontSize: dims.fontSize,
          ...(short ? { formatter: '{yyyy}-{MM}-{dd}' } : {}),
        },
        axisLine: { lineStyle: { color: COLOURS.text } },
      },
      yAxis: {
        type: 'value',
        scale: true,
        name: currency,
        nameTextStyle: { color: COLOURS.text, fontSize: dims.fontSize },
        axisLabel: axisLabel(currency, dims.fontSize),
        splitLine: { lineStyle: { color: COLOURS.grid } },
      },
      series: [
        {
          name: 'Balance',
          type: 'line',
          step: 'end',
          showSymbol: short || points.length === 1,
          symbol: 'circle',
          symbolSize: 7,
          itemStyle: { color: COLOURS.balance },
          lineStyle: { width: 2, color: COLOURS.balance },
          areaStyle: { color: COLOURS.balance, opacity: 0.08 },
          // NZ dates at UTC midnight with useUTC: the axis shows the NZ date whatever the machine's zone.
          data: points.map((p) => [utcMidnight(p.date), toChartNumber(p.units)]),
          markLine: {
            silent: true,
            symbol: 'none',
            label: { show: false },
            lineStyle: { color: COLOURS.text, type: 'dashed', width: 1 },
            data: [{ yAxis: 0 }],
          },
        },
      ],
    },
    (chart) => breakBands(chart, breaks, grid, dims),
  );
}

/**
 * The breaks' bands, placed with the chart's own axis (convertToPixel): a band from the break's
 * first NZ date to the end of its last (at least 8 px wide), its number above the plot. The band is
 * drawn in the SVG; the link to the break's row is an HTML <a> laid over it in percentages of the
 * chart's size (the chart is role="img", whose content is one picture: a link inside it would be
 * lost to a screen reader), so it stays on the band at any width.
 */
function breakBands(
  chart: echarts.EChartsType,
  breaks: readonly BreakMark[],
  grid: { top: number; bottom: number },
  dims: (typeof SIZES)[ChartSize],
): { svg: string; html: string } {
  const svg: string[] = [];
  const html: string[] = [];
  const bottom = dims.height - grid.bottom;
  const pct = (v: number, of: number) => `${((100 * v) / of).toFixed(2)}%`;
  for (const b of breaks) {
    const x0 = chart.convertToPixel({ xAxisIndex: 0 }, utcMidnight(b.from));
    const x1 = chart.convertToPixel({ xAxisIndex: 0 }, utcMidnight(b.to) + 86_400_000);
    if (typeof x0 !== 'number' || typeof x1 !== 'number' || !Number.isFinite(x0) || !Number.isFinite(x1)) continue;
    const width = Math.max(8, x1 - x0);
    const mid = (x0 + x1) / 2;
    const x = mid - width / 2;
    const top = grid.top - dims.fontSize - 8;
    svg.push(
      `<g class="break-band" data-break="${escapeXml(b.label)}">` +
        `<rect x="${x.toFixed(1)}" y="${grid.top}" width="${width.toFixed(1)}" height="${bottom - grid.top}" fill="${COLOURS.moneyOut}" fill-opacity="0.18" stroke="${COLOURS.moneyOut}" stroke-width="1"/>` +
        `<text x="${mid.toFixed(1)}" y="${grid.top - 6}" text-anchor="middle" fill="${COLOURS.moneyOut}" style="font-size:${dims.fontSize}px;font-family:system-ui, sans-serif;font-weight:bold;">${escapeXml(b.label)}</text></g>`,
    );
    const hit = Math.max(width, 24);
    html.push(
      `<a class="break-mark" href="${escapeXml(b.href)}" aria-label="${escapeXml(b.description)}" title="${escapeXml(b.description)}" ` +
        `style="left:${pct(mid - hit / 2, dims.width)};top:${pct(top, dims.height)};width:${pct(hit, dims.width)};height:${pct(bottom - top, dims.height)}"></a>`,
    );
  }
  return { svg: svg.join(''), html: html.join('') };
}

/**
 * Bars per month: money in above zero, money out below it. `only`: the account's consents read
 * credits only ('Credit') or debits only ('Debit'): the other series, never read, is not drawn nor
 * in the legend.
 */
export function flowsChart(
  points: readonly FlowPoint[],
  currency: string,
  text: ChartText,
  size: ChartSize = 'wide',
  only: 'Credit' | 'Debit' | null = null,
): string {
  const dims = SIZES[size];
  const bar = (name: string, color: string, units: (p: (typeof points)[number]) => bigint): BarSeriesOption => ({
    name,
    type: 'bar',
    stack: 'flow',
    itemStyle: { color },
    data: points.map((p) => toChartNumber(units(p))),
  });
  const series: BarSeriesOption[] = [];
  if (only !== 'Debit') series.push(bar('Money in', COLOURS.moneyIn, (p) => p.inUnits));
  if (only !== 'Credit') series.push(bar('Money out', COLOURS.moneyOut, (p) => p.outUnits));
  return render(text, size, {
    grid: { left: dims.left, right: size === 'narrow' ? 12 : 24, top: 36, bottom: 40 },
    legend: { top: 0, right: size === 'narrow' ? 12 : 24, textStyle: { color: COLOURS.text, fontSize: dims.fontSize } },
    xAxis: {
      type: 'category',
      data: points.map((p) => p.month),
      axisLabel: { color: COLOURS.text, hideOverlap: true, fontSize: dims.fontSize },
      axisLine: { onZero: true, lineStyle: { color: COLOURS.text } },
    },
    yAxis: {
      type: 'value',
      name: currency,
      nameTextStyle: { color: COLOURS.text, fontSize: dims.fontSize },
      axisLabel: axisLabel(currency, dims.fontSize),
      splitLine: { lineStyle: { color: COLOURS.grid } },
    },
    series,
  });
}

function render(
  text: ChartText,
  size: ChartSize,
  option: ChartOption,
  extra?: (chart: echarts.EChartsType) => { svg: string; html: string },
): string {
  const { width, height, fontSize } = SIZES[size];
  const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width, height });
  try {
    chart.setOption({
      animation: false,
      useUTC: true,
      aria: { enabled: true },
      textStyle: { fontFamily: 'system-ui, sans-serif', fontSize },
      ...option,
    });
    const svg = chart.renderToSVGString();
    const added = extra ? extra(chart) : { svg: '', html: '' };
    const drawn = accessible(added.svg ? svg.replace(/<\/svg>\s*$/, `${added.svg}</svg>`) : svg, text, size);
    // One box per size, which html.ts's CSS shows or hides; laid-over links are placed in it.
    return `<div class="chart-box" data-size="${size}">${drawn}${added.html}</div>`;
  } finally {
    chart.dispose();
  }
}

/**
 * role="img" named by the chart's <title> and <desc>; hover styles dropped (the page is static);
 * the fixed size replaced by a viewBox that scales to the page and to paper.
 */
function accessible(svg: string, text: ChartText, size: ChartSize): string {
  const titleId = `${text.id}-title`;
  const descId = `${text.id}-desc`;
  return svg
    .replace(/<style[\s\S]*?<\/style>/g, '')
    .replace(
      /^<svg width="(\d+)" height="(\d+)"/,
      `<svg class="chart" role="img" aria-labelledby="${titleId} ${descId}" data-size="${size}" width="100%" preserveAspectRatio="xMidYMid meet" data-width="$1" data-height="$2"`,
    )
    .replace(
      /(<svg[^>]*>)/,
      `$1<title id="${titleId}">${escapeXml(text.title)}</title><desc id="${descId}">${escapeXml(text.description)}</desc>`,
    );
}

/** Compact axis figures ("12.5K", "−3K"); JPY and other currencies without minor digits never show fractions. */
function axisLabel(currency: string, fontSize: number) {
  const format = new Intl.NumberFormat('en-NZ', {
    notation: 'compact',
    maximumFractionDigits: minorUnitExponent(currency) === 0 ? 0 : 1,
  });
  return { color: COLOURS.text, fontSize, formatter: (value: number) => format.format(value).replace(/^-/, '−') };
}

const DAY_MS = 86_400_000;

function utcMidnight(date: string): number {
  return Date.UTC(Number(date.slice(0, 4)), Number(date.slice(5, 7)) - 1, Number(date.slice(8, 10)));
}

const XML_ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => XML_ESCAPES[c] ?? c);
}

/**
 * Characters that can reorder the text around them: the bidi controls (U+202E RIGHT-TO-LEFT
 * OVERRIDE and the rest of Bidi_Control) and the right-to-left scripts (Hebrew, Arabic, Syriac,
 * Thaana, N'Ko and their neighbours, their presentation forms, and the RTL planes' blocks).
 */
const BIDI_SENSITIVE =
  /[\p{Bidi_Control}\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFF\u{10800}-\u{10FFF}\u{1E800}-\u{1EFFF}]/u;

/** Whether `text` needs isolating before it stands beside other text (BIDI_SENSITIVE). */
export function isBidiSensitive(text: string): boolean {
  return BIDI_SENSITIVE.test(text);
}

/**
 * `text` without a POP DIRECTIONAL ISOLATE that closes more isolates than the text opened:
 * inside an isolate such a PDI would end it early and let the rest of the text reorder what
 * follows. It has no other effect, so nothing visible is lost.
 */
export function withoutStrayPdi(text: string): string {
  let open = 0;
  let out = '';
  for (const ch of text) {
    if (ch === '\u2066' || ch === '\u2067' || ch === '\u2068') open++;
    else if (ch === '\u2069') {
      if (open === 0) continue;
      open--;
    }
    out += ch;
  }
  return out;
}

/**
 * Bank-supplied text isolated as plain text (FIRST STRONG ISOLATE … POP DIRECTIONAL ISOLATE), for
 * where markup cannot go: a chart's SVG <title> and <desc>, and a sentence of ours that quotes it
 * (html.ts wraps whole values in <bdi> instead). Text with nothing bidi-sensitive is unchanged.
 */
export function isolateBidi(text: string): string {
  return isBidiSensitive(text) ? `\u2068${withoutStrayPdi(text)}\u2069` : text;
}

/** "1,234.50 NZD" from exact units (for descriptions and tables). */
export function money(units: Units, currency: string): string {
  return `${formatUnitsGrouped(units, currency).replace(/^-/, '−')} ${currency}`;
}
