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
  /** Where one turn ends and the next begins; `label` null when too close to the previous one. */
  turnBoundaries: Array<{ x: number; turn: number; label: string | null }>;
  /** Threshold and window labels, moved apart when their lines are close. */
  thresholdLabelY: number | null;
  windowLabelY: number | null;
}

const MARGIN = { left: 52, right: 14, top: 22, bottom: 40 };
/** Pixels an x label needs so neighbours never touch ("12.30" at 11 px is ~32 px wide). */
const X_LABEL_SPACE = 44;
const TURN_LABEL_SPACE = 26;
const LINE_LABEL_GAP = 14;
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
      if (points[i]!.turn >= turn && points[i]!.tokens < points[i - 1]!.tokens) {
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

  // Every k-th label, k chosen from the real spacing; the last is shown only if it does not crowd its neighbour.
  const spacing = count <= 1 ? plotWidth : plotWidth / (count - 1);
  const labelEvery = Math.max(1, Math.ceil(X_LABEL_SPACE / spacing));
  const xLabels: ChartGeometry['xLabels'] = [];
  input.points.forEach((point, index) => {
    if (index % labelEvery !== 0 && index !== count - 1) return;
    const at = x(index);
    const previous = xLabels[xLabels.length - 1];
    if (previous !== undefined && at - previous.x < X_LABEL_SPACE) {
      if (index !== count - 1) return;
      xLabels.pop();
    }
    xLabels.push({ label: `${point.turn}.${point.round}`, x: at });
  });

  const turnBoundaries: ChartGeometry['turnBoundaries'] = [];
  let lastLabelX = -Infinity;
  input.points.forEach((point, index) => {
    if (index > 0 && point.turn === input.points[index - 1]!.turn) return;
    const at = index === 0 ? plot.left : (x(index - 1) + x(index)) / 2;
    const room = at - lastLabelX >= TURN_LABEL_SPACE;
    if (room) lastLabelX = at;
    turnBoundaries.push({ x: at, turn: point.turn, label: room ? `turn ${point.turn}` : null });
  });

  const positions = compactionPositions(input.points, input.compactions);
  const markers = input.compactions.map((compaction, i) => {
    const position = positions[i]!;
    let at: number;
    if (count === 0) at = plot.left + plotWidth / 2;
    else if (position <= 0) at = x(0);
    else if (position >= count) at = Math.min(plot.right, x(count - 1) + (count > 1 ? plotWidth / (count - 1) / 2 : 0));
    else at = (x(position - 1) + x(position)) / 2;
    return { x: at, compaction };
  });

  const thresholdY = input.threshold !== null && input.threshold > 0 ? y(input.threshold) : null;
  const windowY = showWindow ? y(input.window as number) : null;
  // Labels sit above their line; when the lines are close the threshold's goes below its own.
  const windowLabelY = windowY === null ? null : Math.max(plot.top + 10, windowY - 4);
  let thresholdLabelY = thresholdY === null ? null : thresholdY - 4;
  if (
    thresholdY !== null &&
    thresholdLabelY !== null &&
    windowLabelY !== null &&
    Math.abs(thresholdLabelY - windowLabelY) < LINE_LABEL_GAP
  ) {
    thresholdLabelY = thresholdY + 12;
  }
  return {
    plot,
    yMax,
    yTicks,
    xLabels,
    path,
    dots,
    thresholdY,
    windowY,
    windowOffChart: input.window !== null && input.window > 0 && !showWindow,
    markers,
    turnBoundaries,
    thresholdLabelY,
    windowLabelY,
  };
}
