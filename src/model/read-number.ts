// Usage objects come from many compatible servers, not only OpenAI, so their shape is checked at
// runtime rather than trusted from the SDK's types.

/** The finite number at `path` inside untrusted wire data, or null when absent or not a number. */
export function readNumber(value: unknown, ...path: string[]): number | null {
  let node = value;
  for (const key of path) {
    if (typeof node !== 'object' || node === null) return null;
    node = (node as Record<string, unknown>)[key];
  }
  return typeof node === 'number' && Number.isFinite(node) ? node : null;
}
