// How deeply a JSON text nests, found without parsing it. Parsing a deep text is fine, but every
// recursive walk of the value afterwards (schema validation, strict-null stripping, key sorting,
// `JSON.stringify` of a request body) overflows the stack somewhere past a few thousand levels,
// and a model can send 100,000. A text that nests deeper than any tool's arguments need is refused
// up front, where the refusal is a tool error the model can read.

/** Far deeper than any tool schema nests, far shallower than any recursion here can bear. */
export const MAX_JSON_DEPTH = 256;

const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** True when `text` opens more than `limit` arrays/objects inside each other (strings skipped). */
export function jsonNestsDeeperThan(text: string, limit = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === BACKSLASH) index++;
      else if (code === QUOTE) inString = false;
    } else if (code === QUOTE) {
      inString = true;
    } else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      depth++;
      if (depth > limit) return true;
    } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
      depth--;
    }
  }
  return false;
}
