// `--compact-at` and `compaction.compactAt`: when to compact, as a token count or a share of the
// context window. Parsed once, up front, so a typo is a usage error before any model call.

/** A setting problem the user fixes (exit code 2, like any usage error). */
export class CompactionConfigError extends Error {
  readonly exitCode = 2;
  constructor(message: string) {
    super(message);
    this.name = 'CompactionConfigError';
  }
}

export type CompactAt = { kind: 'tokens'; tokens: number } | { kind: 'percent'; percent: number };

/** Compact once the context reaches 85 % of the window, unless told otherwise. */
export const DEFAULT_COMPACT_AT: CompactAt = { kind: 'percent', percent: 85 };

const TOKENS = /^(\d+(?:[_,]\d{3})*)(k)?$/i;
const PERCENT = /^(\d+(?:\.\d+)?)\s*%$/;

/**
 * `120000`, `120_000`, `120,000`, `120k` → tokens; `85%`, `72.5%` → share of the window.
 * `source` names the flag or setting in the error message.
 */
export function parseCompactAt(value: string, source = '--compact-at'): CompactAt {
  const text = value.trim();
  const percent = PERCENT.exec(text);
  if (percent) {
    const share = Number(percent[1]);
    if (!(share > 0 && share <= 100)) {
      throw new CompactionConfigError(`${source} ${JSON.stringify(value)}: a percentage must be above 0% and at most 100%`);
    }
    return { kind: 'percent', percent: share };
  }
  const tokens = TOKENS.exec(text);
  if (tokens) {
    const count = Number(tokens[1]!.replace(/[_,]/g, '')) * (tokens[2] ? 1000 : 1);
    if (!Number.isSafeInteger(count) || count <= 0) {
      throw new CompactionConfigError(`${source} ${JSON.stringify(value)}: the token count must be a positive whole number`);
    }
    return { kind: 'tokens', tokens: count };
  }
  throw new CompactionConfigError(
    `${source} ${JSON.stringify(value)} is not understood; give a token count (120000 or 120k) or a share of the context window (85%)`,
  );
}

/** The threshold in tokens for a given window. */
export function compactAtTokens(compactAt: CompactAt, contextWindow: number): number {
  if (compactAt.kind === 'tokens') return compactAt.tokens;
  return Math.max(1, Math.floor((contextWindow * compactAt.percent) / 100));
}

export function describeCompactAt(compactAt: CompactAt): string {
  return compactAt.kind === 'tokens' ? `${compactAt.tokens} tokens` : `${compactAt.percent}%`;
}

/** `--context-window`: a positive whole number of tokens (`128000`, `128k`). */
export function parseContextWindow(value: string, source = '--context-window'): number {
  const match = TOKENS.exec(value.trim());
  const count = match ? Number(match[1]!.replace(/[_,]/g, '')) * (match[2] ? 1000 : 1) : Number.NaN;
  if (!Number.isSafeInteger(count) || count <= 0) {
    throw new CompactionConfigError(`${source} ${JSON.stringify(value)}: expected a positive number of tokens, e.g. 128000 or 128k`);
  }
  return count;
}
