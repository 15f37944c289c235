// One row per figure; a ratio against an in-run baseline wherever one exists.

export interface BenchRow {
  group: string;
  name: string;
  value: number;
  unit: string;
  /** The same measure for the in-run baseline, when there is one. */
  baseline?: { name: string; value: number };
  /** value / baseline.value */
  ratio?: number;
  /** Human-readable target, e.g. "≤ 1.5×". */
  target?: string;
  /** Whether the target holds; undefined when there is no target. */
  met?: boolean;
  note?: string;
}

export function withRatio(row: Omit<BenchRow, 'ratio' | 'met'>, maxRatio?: number): BenchRow {
  const ratio = row.baseline && row.baseline.value > 0 ? row.value / row.baseline.value : undefined;
  const met = maxRatio !== undefined && ratio !== undefined ? ratio <= maxRatio : undefined;
  return { ...row, ratio, met, target: row.target ?? (maxRatio !== undefined ? `≤ ${maxRatio}×` : undefined) };
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function fmt(value: number): string {
  if (Number.isInteger(value)) return value.toLocaleString('en-US');
  return value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2);
}

export function renderMarkdown(rows: BenchRow[], machine: string): string {
  const lines = [
    `# Glassbox benchmarks`,
    '',
    `Machine: ${machine}`,
    '',
    '| group | measure | value | baseline | ratio | target | met |',
    '| --- | --- | ---: | --- | ---: | --- | :---: |',
  ];
  for (const row of rows) {
    const baseline = row.baseline ? `${row.baseline.name}: ${fmt(row.baseline.value)} ${row.unit}` : '';
    const ratio = row.ratio !== undefined ? `${row.ratio.toFixed(2)}×` : '';
    const met = row.met === undefined ? '' : row.met ? 'yes' : '**no**';
    lines.push(
      `| ${row.group} | ${row.name}${row.note ? ` (${row.note})` : ''} | ${fmt(row.value)} ${row.unit} | ${baseline} | ${ratio} | ${row.target ?? ''} | ${met} |`,
    );
  }
  return lines.join('\n');
}
