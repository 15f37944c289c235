// A hand-drawn SVG line chart of context tokens per model round, with the compaction threshold,
// the context window, and a mark at every compaction.

import { useId, useLayoutEffect, useRef, useState } from 'react';
import { formatTokens } from '../format/index.js';
import { chartGeometry, type ChartInput } from './context-geometry.js';

const HEIGHT = 250;
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

export interface ContextChartProps {
  input: ChartInput;
  /** Opens the model call behind a point (its index among the session's calls). */
  onOpenCall?(index: number): void;
}

export function ContextChart({ input, onOpenCall }: ContextChartProps) {
  const titleId = useId();
  const { ref, width } = useWidth();
  const [hover, setHover] = useState<number | null>(null);
  const size = { width, height: HEIGHT };
  const geometry = chartGeometry(input, size);
  const { plot } = geometry;
  const last = input.points[input.points.length - 1];
  const description =
    last === undefined
      ? 'No model calls recorded yet.'
      : `${input.points.length} rounds; latest ${formatTokens(last.tokens)} tokens` +
        (input.threshold !== null ? `, threshold ${formatTokens(input.threshold)}` : '') +
        (input.window !== null ? `, window ${formatTokens(input.window)}` : '') +
        `; ${input.compactions.length} compaction${input.compactions.length === 1 ? '' : 's'}.`;
  const hovered = hover === null ? null : (geometry.dots[hover] ?? null);
  return (
    <figure className="context-chart" ref={ref}>
      <svg viewBox={`0 0 ${size.width} ${size.height}`} role="group" aria-labelledby={titleId} preserveAspectRatio="xMidYMid meet">
        <title id={titleId}>Context tokens per model call. {description}</title>
        {geometry.yTicks.map((tick) => (
          <g key={tick.value} className="chart-grid">
            <line x1={plot.left} x2={plot.right} y1={tick.y} y2={tick.y} />
            <text x={plot.left - 6} y={tick.y} dy="0.32em" textAnchor="end">
              {formatTokens(tick.value)}
            </text>
          </g>
        ))}
        {geometry.turnBoundaries.map((boundary) => (
          <g key={boundary.turn} className="chart-turn">
            {boundary.x > plot.left && <line x1={boundary.x} x2={boundary.x} y1={plot.top} y2={plot.bottom} />}
            {boundary.label !== null && (
              <text x={boundary.x + 3} y={plot.top - 8}>
                {boundary.label}
              </text>
            )}
          </g>
        ))}
        {geometry.xLabels.map((label) => (
          <text key={label.label} className="chart-axis-label" x={label.x} y={plot.bottom + 14} textAnchor="middle">
            {label.label}
          </text>
        ))}
        <text className="chart-axis-title" x={(plot.left + plot.right) / 2} y={size.height - 4} textAnchor="middle">
          model call (turn.round)
        </text>
        <text className="chart-axis-title" transform={`translate(11 ${(plot.top + plot.bottom) / 2}) rotate(-90)`} textAnchor="middle">
          tokens in context
        </text>
        {geometry.windowY !== null && geometry.windowLabelY !== null && (
          <g className="chart-window">
            <line x1={plot.left} x2={plot.right} y1={geometry.windowY} y2={geometry.windowY} />
            <text x={plot.left + 4} y={geometry.windowLabelY} textAnchor="start">
              window {formatTokens(input.window)}
            </text>
          </g>
        )}
        {geometry.thresholdY !== null && geometry.thresholdLabelY !== null && (
          <g className="chart-threshold">
            <line x1={plot.left} x2={plot.right} y1={geometry.thresholdY} y2={geometry.thresholdY} />
            <text x={plot.left + 4} y={geometry.thresholdLabelY} textAnchor="start">
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
        {geometry.dots.map((dot, index) => (
          // A pointer shortcut: every call the chart shows is also reachable by keyboard in the trace list.
          // biome-ignore lint/a11y/noStaticElementInteractions: see above
          <circle
            key={`${dot.point.turn}.${dot.point.round}.${index}`}
            className={dot.point.estimated ? 'chart-dot estimated' : 'chart-dot'}
            cx={dot.x}
            cy={dot.y}
            r={hover === index ? 5 : 3.5}
            data-call-index={dot.point.callIndex}
            onMouseEnter={() => setHover(index)}
            onMouseLeave={() => setHover((current) => (current === index ? null : current))}
            onClick={() => onOpenCall?.(dot.point.callIndex)}
          />
        ))}
        <line className="chart-axis" x1={plot.left} x2={plot.right} y1={plot.bottom} y2={plot.bottom} />
      </svg>
      {hovered !== null && (
        <div
          className="chart-hover"
          role="status"
          style={{ left: `${(hovered.x / size.width) * 100}%`, top: Math.max(0, hovered.y - 58) }}
          data-testid="chart-hover"
        >
          <strong>
            Turn {hovered.point.turn}, round {hovered.point.round}
          </strong>
          <span>
            {hovered.point.tokens.toLocaleString('en')} tokens{hovered.point.estimated ? ' (estimated)' : ''}
          </span>
          <span className="muted">Click to open call #{hovered.point.callIndex + 1}</span>
        </div>
      )}
      <figcaption className="chart-legend">
        <span className="legend-item legend-line">context tokens per call</span>
        <span className="legend-item legend-threshold">compaction threshold</span>
        {geometry.windowY !== null && <span className="legend-item legend-window">context window</span>}
        {geometry.windowOffChart && <span className="legend-item muted">window {formatTokens(input.window)} (above the chart)</span>}
        <span className="legend-item legend-compaction">compaction</span>
        <span className="legend-item legend-turn">turn boundary</span>
      </figcaption>
    </figure>
  );
}
