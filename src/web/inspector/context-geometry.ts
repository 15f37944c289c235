// The context chart's geometry, kept apart from the SVG so it can be checked without a browser:
// where each round's point goes, where the threshold and window lines sit, and where each
// compaction is marked (at the drop it caused).

import type { ContextPoint } from '../api/index.js';

export interface ChartCompaction {
  compactionId: string;
  turn: number | null;
  tokensBefore: number | null;
  tokensAfter: number | null;
}

export interface ChartInput {
  window: number | null;
  threshold: number | null;
  points: ContextPoint[];
  compactions: ChartCompaction[];
}

export interface ChartSize {
  width: number;
  height: number;
}

export interface ChartGeometry {
  plot: { left: number; top: number; right: number; bottom: number };
  yMax: number;
  yTicks: Array<{ value: number; y: number }>;
  xLabels: Array<{ label: string; x: number }>;
  /** SVG path of the context line; empty without points. */
  path: string;
  dots: Array<{ x: number; y: number; point: ContextPoint }>;
  thresholdY: number | null;
  /** null when there is no window, or it is so far above the data that drawing it would flatten the line. */
  windowY: number | null;
  windowOffChart: boolean;
  markers: Array<{ x: number; compaction: ChartCompaction }>;
}

const MARGIN = { left: 48, right: 12, top: 12, bottom: 26 };
/** Draw the window line only when it is within this factor of everything else on the chart. */
const WINDOW_FACTOR = 2.5;

/** A round number of tokens per tick: 1, 2, 2.5 or 5 times a power of ten (at least 1). */
export function niceStep(rough: number): number {
  if (!(rough > 1)) return 1;
  const power = 10 ** Math.floor(Math.log10(rough));
  const fraction = rough / power;
  const nice = fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 2.5 ? 2.5 : fraction <= 5 ? 5 : 10;
  return Math.max(1, nice * power);
}

/** The index of the point each compaction is drawn before: the first drop at or after its turn. */
export function compactionPositions(points: ContextPoint[], compactions: ChartCompaction[]): number[] {
  const positions: number[] = [];
  let from = 1;
  for (const compaction of compactions) {
    const turn = compaction.turn ?? 0;
    let found = -1;
    for (let i = Math.max(from, 1); i < points.length; i++) {
      if (points[i].turn >= turn && points[i].tokens < points[i - 1].tokens) {
        found = i;
        break;
      }
    }
    if (found === -1) {
      // No visible drop (e.g. compacted after the last recorded call): mark where its turn starts, or at the end.
      const start = points.findIndex((point, i) => i >= from - 1 && point.turn > turn);
      found = start === -1 ? points.length : start;
    }
    positions.push(found);
    from = Math.min(found + 1, points.length);
  }
  return positions;
}

export function chartGeometry(input: ChartInput, size: ChartSize): ChartGeometry {
  const plot = { left: MARGIN.left, top: MARGIN.top, right: size.width - MARGIN.right, bottom: size.height - MARGIN.bottom };
  const plotWidth = plot.right - plot.left;
  const plotHeight = plot.bottom - plot.top;
  const dataMax = Math.max(
    0,
    ...input.points.map((point) => point.tokens),
    ...input.compactions.map((compaction) => compaction.tokensBefore ?? 0),
    input.threshold ?? 0,
  );
  const showWindow = input.window !== null && input.window > 0 && (dataMax === 0 || input.window <= dataMax * WINDOW_FACTOR);
  const top = Math.max(dataMax, showWindow ? (input.window as number) : 0, 1);
  const step = niceStep(top / 4);
  const yMax = Math.ceil((top * 1.05) / step) * step;
  const y = (value: number) => plot.bottom - (Math.max(0, Math.min(value, yMax)) / yMax) * plotHeight;

  const count = input.points.length;
  const x = (index: number) => (count <= 1 ? plot.left + plotWidth / 2 : plot.left + (index / (count - 1)) * plotWidth);
  const dots = input.points.map((point, index) => ({ x: x(index), y: y(point.tokens), point }));
  const path = dots.map((dot, index) => `${index === 0 ? 'M' : 'L'}${dot.x.toFixed(1)},${dot.y.toFixed(1)}`).join(' ');

  const yTicks: ChartGeometry['yTicks'] = [];
  for (let value = 0; value <= yMax + step / 2; value += step) yTicks.push({ value, y: y(value) });

  const labelEvery = Math.max(1, Math.ceil(count / 8));
  const xLabels = input.points
    .map((point, index) => ({ label: `${point.turn}.${point.round}`, x: x(index), index }))
    .filter((label) => label.index % labelEvery === 0 || label.index === count - 1)
    .map(({ label, x: at }) => ({ label, x: at }));

  const positions = compactionPositions(input.points, input.compactions);
  const markers = input.compactions.map((compaction, i) => {
    const position = positions[i];
    let at: number;
    if (count === 0) at = plot.left + plotWidth / 2;
    else if (position <= 0) at = x(0);
    else if (position >= count) at = Math.min(plot.right, x(count - 1) + (count > 1 ? plotWidth / (count - 1) / 2 : 0));
    else at = (x(position - 1) + x(position)) / 2;
    return { x: at, compaction };
  });

  return {
    plot,
    yMax,
    yTicks,
    xLabels,
    path,
    dots,
    thresholdY: input.threshold !== null && input.threshold > 0 ? y(input.threshold) : null,
    windowY: showWindow ? y(input.window as number) : null,
    windowOffChart: input.window !== null && input.window > 0 && !showWindow,
    markers,
  };
}
