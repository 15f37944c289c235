// A hand-drawn SVG line chart of context tokens per model round, with the compaction threshold,
// the context window, and a mark at every compaction.

import { useId, useLayoutEffect, useRef, useState } from 'react';
import { formatTokens } from '../format/index.js';
import { chartGeometry, type ChartInput } from './context-geometry.js';

const HEIGHT = 220;
const FALLBACK_WIDTH = 400;

/** Drawn at the container's real width, so labels keep their size instead of scaling with the pane. */
function useWidth() {
  const ref = useRef<HTMLElement | null>(null);
  const [width, setWidth] = useState(FALLBACK_WIDTH);
  useLayoutEffect(() => {
    const element = ref.current;
    if (element === null) return;
    const measure = () => setWidth(Math.max(240, Math.round(element.getBoundingClientRect().width)));
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  return { ref, width };
}

export function ContextChart({ input }: { input: ChartInput }) {
  const titleId = useId();
  const { ref, width } = useWidth();
  const size = { width, height: HEIGHT };
  const geometry = chartGeometry(input, size);
  const { plot } = geometry;
  const last = input.points[input.points.length - 1];
  const description =
    input.points.length === 0
      ? 'No model calls recorded yet.'
      : `${input.points.length} rounds; latest ${formatTokens(last.tokens)} tokens` +
        (input.threshold !== null ? `, threshold ${formatTokens(input.threshold)}` : '') +
        (input.window !== null ? `, window ${formatTokens(input.window)}` : '') +
        `; ${input.compactions.length} compaction${input.compactions.length === 1 ? '' : 's'}.`;
  return (
    <figure className="context-chart" ref={ref}>
      <svg viewBox={`0 0 ${size.width} ${size.height}`} role="img" aria-labelledby={titleId} preserveAspectRatio="xMidYMid meet">
        <title id={titleId}>Context tokens per round. {description}</title>
        {geometry.yTicks.map((tick) => (
          <g key={tick.value} className="chart-grid">
            <line x1={plot.left} x2={plot.right} y1={tick.y} y2={tick.y} />
            <text x={plot.left - 6} y={tick.y} dy="0.32em" textAnchor="end">
              {formatTokens(tick.value)}
            </text>
          </g>
        ))}
        {geometry.xLabels.map((label) => (
          <text key={label.label} className="chart-axis-label" x={label.x} y={plot.bottom + 16} textAnchor="middle">
            {label.label}
          </text>
        ))}
        {geometry.windowY !== null && (
          <g className="chart-window">
            <line x1={plot.left} x2={plot.right} y1={geometry.windowY} y2={geometry.windowY} />
            <text x={plot.right - 4} y={geometry.windowY - 4} textAnchor="end">
              window {formatTokens(input.window)}
            </text>
          </g>
        )}
        {geometry.thresholdY !== null && (
          <g className="chart-threshold">
            <line x1={plot.left} x2={plot.right} y1={geometry.thresholdY} y2={geometry.thresholdY} />
            <text x={plot.right - 4} y={geometry.thresholdY - 4} textAnchor="end">
              compact at {formatTokens(input.threshold)}
            </text>
          </g>
        )}
        {geometry.markers.map((marker) => (
          <g key={marker.compaction.compactionId} className="chart-compaction" data-compaction-id={marker.compaction.compactionId}>
            <line x1={marker.x} x2={marker.x} y1={plot.top} y2={plot.bottom} />
            <path d={`M${marker.x - 5},${plot.top} L${marker.x + 5},${plot.top} L${marker.x},${plot.top + 7} Z`} />
            <title>
              Compaction: {formatTokens(marker.compaction.tokensBefore)} → {formatTokens(marker.compaction.tokensAfter)} tokens
            </title>
          </g>
        ))}
        {geometry.path !== '' && <path className="chart-line" d={geometry.path} />}
        {geometry.dots.map((dot) => (
          <circle key={`${dot.point.turn}.${dot.point.round}`} className={dot.point.estimated ? 'chart-dot estimated' : 'chart-dot'} cx={dot.x} cy={dot.y} r={3}>
            <title>
              Turn {dot.point.turn}, round {dot.point.round}: {dot.point.tokens.toLocaleString('en')} tokens{dot.point.estimated ? ' (estimated)' : ''}
            </title>
          </circle>
        ))}
        <line className="chart-axis" x1={plot.left} x2={plot.right} y1={plot.bottom} y2={plot.bottom} />
      </svg>
      <figcaption className="chart-legend">
        <span className="legend-item legend-line">context tokens (turn.round)</span>
        <span className="legend-item legend-threshold">compaction threshold</span>
        {geometry.windowY !== null && <span className="legend-item legend-window">context window</span>}
        {geometry.windowOffChart && <span className="legend-item muted">window {formatTokens(input.window)} (above the chart)</span>}
        <span className="legend-item legend-compaction">compaction</span>
      </figcaption>
    </figure>
  );
}
