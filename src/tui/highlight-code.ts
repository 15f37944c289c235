// Syntax highlight for code blocks in answers: lowlight (highlight.js grammars, a tree of
// classed spans) mapped onto the theme's few tones. Unknown or missing languages stay plain
// rather than being guessed: auto-detection on short snippets picks wrong grammars often.

import type { createLowlight } from 'lowlight';
import type { Theme, Tone } from './theme.js';

// The grammars take a noticeable moment to load: they load after the first frame is drawn, and
// code shown before that stays plain.
let lowlight: ReturnType<typeof createLowlight> | null = null;
let loading: Promise<void> | null = null;

export function loadHighlighter(): Promise<void> {
  loading ??= import('lowlight').then((module) => {
    lowlight = module.createLowlight(module.common);
  });
  return loading;
}

// highlight.js class names (without the `hljs-` prefix) → tone.
const TONES: Record<string, Tone> = {
  keyword: 'keyword',
  built_in: 'keyword',
  literal: 'number',
  type: 'title',
  string: 'string',
  regexp: 'string',
  comment: 'comment',
  doctag: 'comment',
  number: 'number',
  title: 'title',
  'title.function': 'title',
  'title.class': 'title',
  attr: 'accent',
  attribute: 'accent',
  variable: 'accent',
  params: 'accent',
  meta: 'muted',
  addition: 'added',
  deletion: 'removed',
  section: 'title',
  tag: 'keyword',
  name: 'keyword',
};

interface HastText {
  type: 'text';
  value: string;
}
interface HastElement {
  type: 'element';
  properties?: { className?: unknown };
  children: HastNode[];
}
type HastNode = HastText | HastElement | { type: string; children?: HastNode[] };

function toneOf(node: HastElement): Tone | null {
  const classes = Array.isArray(node.properties?.className) ? (node.properties.className as string[]) : [];
  for (const name of classes) {
    const key = name.replace(/^hljs-/, '');
    if (TONES[key]) return TONES[key];
    const head = key.split('.')[0]!;
    if (TONES[head]) return TONES[head];
  }
  return null;
}

function render(nodes: HastNode[], theme: Theme, inherited: Tone | null): string {
  let out = '';
  for (const node of nodes) {
    if (node.type === 'text') {
      const value = (node as HastText).value;
      out += inherited ? paintLines(value, (line) => theme.tone(inherited, line)) : value;
    } else if (node.type === 'element') {
      const element = node as HastElement;
      out += render(element.children, theme, toneOf(element) ?? inherited);
    } else if ('children' in node && node.children) {
      out += render(node.children, theme, inherited);
    }
  }
  return out;
}

/** Styles each line apart, so a style never spans a newline (ink wraps and slices per line). */
function paintLines(text: string, paint: (line: string) => string): string {
  return text
    .split('\n')
    .map((line) => paint(line))
    .join('\n');
}

/** `code` highlighted as `language` (a fence's info word), or plain when it is not known. */
export function highlightCode(code: string, language: string | null, theme: Theme): string {
  if (!theme.color || language === null || lowlight === null) return code;
  const name = language.trim().toLowerCase();
  if (name === '' || !lowlight.registered(name)) return code;
  try {
    const tree = lowlight.highlight(name, code);
    return render(tree.children as HastNode[], theme, null);
  } catch {
    return code;
  }
}
