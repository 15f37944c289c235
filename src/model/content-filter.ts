// What Azure's content filter says it found, in the user's words. Azure OpenAI annotates a
// filtered prompt (400, error.code "content_filter", with error.innererror.content_filter_result)
// and a filtered completion (finish_reason "content_filter", with the choice's
// content_filter_results) by category: hate, sexual, violence and self_harm as
// {filtered, severity}, jailbreak, indirect_attack and protected material as {filtered, detected},
// custom blocklists as {filtered, details: [{id, filtered}]}. A fixed sentence would hide which
// filter fired and how sure it was, which is what a person needs to rephrase or to ask the
// deployment's owner to change its policy.

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parsed(body: unknown): unknown {
  if (typeof body !== 'string') return body;
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return null;
  }
}

/** The filter's result object inside an error body (`error.innererror.content_filter_result`), or null. */
export function contentFilterResultIn(body: unknown): Record<string, unknown> | null {
  const value = parsed(body);
  const error = isRecord(value) && isRecord(value.error) ? value.error : value;
  if (!isRecord(error)) return null;
  const inner = isRecord(error.innererror) ? error.innererror : error;
  const result = inner.content_filter_result ?? inner.content_filter_results;
  return isRecord(result) ? result : null;
}

function categoryName(key: string): string {
  return key.replace(/_/g, '-');
}

function describeCategory(key: string, entry: Record<string, unknown>): string {
  const name = categoryName(key);
  if (typeof entry.severity === 'string') return `${name} (severity ${entry.severity})`;
  if (Array.isArray(entry.details)) {
    const ids = entry.details.flatMap((detail) =>
      isRecord(detail) && detail.filtered === true && typeof detail.id === 'string' ? [detail.id] : [],
    );
    if (ids.length > 0) return `${name} (${ids.join(', ')})`;
  }
  if (entry.detected === true) return `${name} (detected)`;
  return name;
}

/**
 * The categories a filter result reports, filtered ones first: "violence (severity medium)",
 * "jailbreak (detected)". Unfiltered categories are named only when they were found at all (a
 * severity above safe, or detected). Empty when the result holds nothing readable.
 */
export function describeContentFilter(result: unknown): string {
  if (!isRecord(result)) return '';
  const filtered: string[] = [];
  const noted: string[] = [];
  for (const [key, entry] of Object.entries(result)) {
    if (!isRecord(entry)) continue;
    if (entry.filtered === true) filtered.push(describeCategory(key, entry));
    else if ((typeof entry.severity === 'string' && entry.severity !== 'safe') || entry.detected === true)
      noted.push(describeCategory(key, entry));
  }
  const parts: string[] = [];
  if (filtered.length > 0) parts.push(`filtered: ${filtered.join(', ')}`);
  if (noted.length > 0) parts.push(`also flagged, not filtered: ${noted.join(', ')}`);
  return parts.join('; ');
}
