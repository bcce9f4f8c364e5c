// The Stats view's charts, drawn by uPlot on canvas (docs/decisions/0027-console-charts-with-uplot.md): sparklines of a
// row's buckets and bars per strategy. Colours come from the theme's CSS variables, read when a chart is drawn.
import uPlot from 'uplot';
import { h } from '../dom.ts';
import type { ChartData } from '../stats-model.ts';

export const SPARKLINE_SIZE = { width: 140, height: 34 };
export const BAR_CHART_SIZE = { width: 420, height: 200 };

/** A chart the view owns: destroyed when the view redraws or leaves. */
export interface Chart {
  element: HTMLElement;
  destroy(): void;
}

function themeColor(name: string, fallback: string): string {
  const value = getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  return value === '' ? fallback : value;
}

/** A line per series over the window's buckets, without axes, legend or cursor: for a table cell. */
export function sparkline(options: { data: ChartData; colors: string[]; label: string }): Chart {
  const element = h('div', { class: 'sparkline', role: 'img', 'aria-label': options.label });
  if (options.data[0].length === 0) {
    element.append(h('span', { class: 'muted' }, '—'));
    return { element, destroy: () => undefined };
  }
  const plot = new uPlot(
    {
      ...SPARKLINE_SIZE,
      pxAlign: false,
      legend: { show: false },
      cursor: { show: false },
      select: { show: false, left: 0, top: 0, width: 0, height: 0 },
      padding: [3, 2, 3, 2],
      axes: [{ show: false }, { show: false }],
      // A flat line of zeros still gets a range, drawn along the bottom.
      scales: { x: { time: false }, y: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
      series: [
        {},
        ...options.colors.map((color) => ({ stroke: themeColor(color, '#888'), width: 1.5, points: { show: false } })),
      ],
    },
    options.data,
    element,
  );
  return { element, destroy: () => plot.destroy() };
}

/** Vertical bars, one per label; a null value draws no bar. */
export function barChart(options: {
  title: string;
  labels: string[];
  values: (number | null)[];
  color: string;
  format: (value: number) => string;
  max?: number;
}): Chart {
  const element = h('figure', { class: 'bar-chart' }, h('figcaption', {}, options.title));
  const { labels } = options;
  const muted = themeColor('--muted', '#666');
  const grid = themeColor('--border', '#ddd');
  const x = labels.map((_, i) => i);
  const bars = uPlot.paths.bars?.({ size: [0.6, 64], align: 0 });
  const plot = new uPlot(
    {
      ...BAR_CHART_SIZE,
      legend: { show: false },
      cursor: { show: false },
      select: { show: false, left: 0, top: 0, width: 0, height: 0 },
      scales: {
        x: { time: false, range: () => [-0.5, Math.max(0.5, labels.length - 0.5)] },
        y: { range: (_u, _min, max) => [0, options.max ?? Math.max(1, max * 1.1)] },
      },
      axes: [
        {
          stroke: muted,
          grid: { show: false },
          ticks: { show: false },
          splits: () => x,
          values: (_u, splits) => splits.map((i) => labels[i] ?? ''),
        },
        {
          stroke: muted,
          grid: { stroke: grid, width: 1 },
          ticks: { show: false },
          size: 56,
          values: (_u, splits) => splits.map((v) => options.format(v)),
        },
      ],
      series: [
        {},
        {
          label: options.title,
          fill: themeColor(options.color, '#4a7'),
          stroke: themeColor(options.color, '#4a7'),
          ...(bars === undefined ? {} : { paths: bars }),
          points: { show: false },
        },
      ],
    },
    [x, options.values],
    element,
  );
  return { element, destroy: () => plot.destroy() };
}
