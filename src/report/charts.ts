/**
 * The report's charts: Apache ECharts rendered to SVG at build time (server-side rendering, no
 * script in the page), each with a <title> and <desc> and role="img" so that a screen reader
 * announces it; the table beside it carries the exact figures. Coordinates are doubles (drawing
 * only); every figure a person reads is formatted from exact units.
 */
import * as echarts from 'echarts';
import { formatUnitsGrouped, toChartNumber, type Units } from '@bankdata/core/money';
import { minorUnitExponent } from '@bankdata/core/money';

export const COLOURS = {
  balance: '#1d4f91',
  moneyIn: '#1e7b34',
  moneyOut: '#b3261e',
  grid: '#d0d5dd',
  text: '#1f2933',
} as const;
const WIDTH = 760;
const HEIGHT = 280;

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

export interface FlowPoint {
  month: string;
  inUnits: Units;
  outUnits: Units;
}

/** A step line of the balance at each NZ day's end. */
export function balanceChart(points: readonly BalancePoint[], currency: string, text: ChartText): string {
  return render(text, {
    grid: { left: 90, right: 24, top: 24, bottom: 40 },
    xAxis: {
      type: 'time',
      axisLabel: { color: COLOURS.text, hideOverlap: true },
      axisLine: { lineStyle: { color: COLOURS.text } },
    },
    yAxis: {
      type: 'value',
      scale: true,
      name: currency,
      nameTextStyle: { color: COLOURS.text },
      axisLabel: axisLabel(currency),
      splitLine: { lineStyle: { color: COLOURS.grid } },
    },
    series: [
      {
        name: 'Balance',
        type: 'line',
        step: 'end',
        showSymbol: false,
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
  });
}

/** Bars per month: money in above zero, money out below it. */
export function flowsChart(points: readonly FlowPoint[], currency: string, text: ChartText): string {
  return render(text, {
    grid: { left: 90, right: 24, top: 36, bottom: 40 },
    legend: { top: 0, right: 24, textStyle: { color: COLOURS.text } },
    xAxis: {
      type: 'category',
      data: points.map((p) => p.month),
      axisLabel: { color: COLOURS.text, hideOverlap: true },
      axisLine: { onZero: true, lineStyle: { color: COLOURS.text } },
    },
    yAxis: {
      type: 'value',
      name: currency,
      nameTextStyle: { color: COLOURS.text },
      axisLabel: axisLabel(currency),
      splitLine: { lineStyle: { color: COLOURS.grid } },
    },
    series: [
      {
        name: 'Money in',
        type: 'bar',
        stack: 'flow',
        itemStyle: { color: COLOURS.moneyIn },
        data: points.map((p) => toChartNumber(p.inUnits)),
      },
      {
        name: 'Money out',
        type: 'bar',
        stack: 'flow',
        itemStyle: { color: COLOURS.moneyOut },
        data: points.map((p) => toChartNumber(p.outUnits)),
      },
    ],
  });
}

function render(text: ChartText, option: echarts.EChartsOption): string {
  const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width: WIDTH, height: HEIGHT });
  try {
    chart.setOption({
      animation: false,
      useUTC: true,
      aria: { enabled: true },
      textStyle: { fontFamily: 'system-ui, sans-serif' },
      ...option,
    });
    const svg = chart.renderToSVGString();
    return accessible(svg, text);
  } finally {
    chart.dispose();
  }
}

/**
 * role="img" named by the chart's <title> and <desc>; hover styles dropped (the page is static);
 * the fixed size replaced by a viewBox that scales to the page and to paper.
 */
function accessible(svg: string, text: ChartText): string {
  const titleId = `${text.id}-title`;
  const descId = `${text.id}-desc`;
  return svg
    .replace(/<style[\s\S]*?<\/style>/g, '')
    .replace(
      /^<svg width="(\d+)" height="(\d+)"/,
      `<svg class="chart" role="img" aria-labelledby="${titleId} ${descId}" width="100%" preserveAspectRatio="xMidYMid meet" data-width="$1" data-height="$2"`,
    )
    .replace(
      /(<svg[^>]*>)/,
      `$1<title id="${titleId}">${escapeXml(text.title)}</title><desc id="${descId}">${escapeXml(text.description)}</desc>`,
    );
}

/** Compact axis figures ("12.5K", "−3K"); JPY and other currencies without minor digits never show fractions. */
function axisLabel(currency: string) {
  const format = new Intl.NumberFormat('en-NZ', {
    notation: 'compact',
    maximumFractionDigits: minorUnitExponent(currency) === 0 ? 0 : 1,
  });
  return { color: COLOURS.text, formatter: (value: number) => format.format(value).replace(/^-/, '−') };
}

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
