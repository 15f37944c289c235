// A tool call's arguments as the faces read them: the model's JSON text, an object or nothing.
// Display only (a one-liner, a preview): the tool itself validates its arguments with its schema.

/** The arguments object, or null when the text is not JSON or not an object (a model's mistake). */
export function argumentsObject(raw: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(raw);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** The arguments as the faces show them in full: indented JSON, or the text as it came when it is not JSON. */
export function prettyArguments(raw: string): string {
  try {
    return JSON.stringify(JSON.parse(raw), null, 2);
  } catch {
    return raw;
  }
}
