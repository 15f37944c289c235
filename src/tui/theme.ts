// Every colour the interactive session prints goes through one theme, so NO_COLOR (no-color.org)
// is honoured in one place: with it, text keeps bold, dim and inverse (attributes, not colours)
// and loses every foreground colour. Styles are raw SGR strings rather than ink colour props
// because markdown and highlighted code are built as ANSI text before ink lays them out.

export type Tone =
  | 'accent'
  | 'success'
  | 'warning'
  | 'error'
  | 'muted'
  | 'added'
  | 'removed'
  | 'hunk'
  | 'keyword'
  | 'string'
  | 'comment'
  | 'number'
  | 'title'
  | 'code';

const COLOUR: Record<Tone, string> = {
  accent: '36', // cyan
  success: '32',
  warning: '33',
  error: '31',
  muted: '90',
  added: '32',
  removed: '31',
  hunk: '36',
  keyword: '35',
  string: '32',
  comment: '90',
  number: '33',
  title: '34',
  code: '33',
};

export interface Theme {
  readonly color: boolean;
  tone(tone: Tone, text: string): string;
  bold(text: string): string;
  dim(text: string): string;
  italic(text: string): string;
  inverse(text: string): string;
  underline(text: string): string;
}

function wrap(open: string, close: string, text: string): string {
  // Re-open after any inner reset so nested styles do not end the outer one early.
  return text === '' ? '' : `\x1b[${open}m${text.split(`\x1b[${close}m`).join(`\x1b[${close}m\x1b[${open}m`)}\x1b[${close}m`;
}

export function createTheme(color: boolean): Theme {
  return {
    color,
    tone: (tone, text) => (color ? wrap(COLOUR[tone], '39', text) : text),
    bold: (text) => wrap('1', '22', text),
    dim: (text) => wrap('2', '22', text),
    italic: (text) => wrap('3', '23', text),
    inverse: (text) => wrap('7', '27', text),
    underline: (text) => wrap('4', '24', text),
  };
}

/** https://no-color.org: set to any non-empty value, it turns colour off. */
export function colorWanted(env: NodeJS.ProcessEnv = process.env): boolean {
  return (env.NO_COLOR ?? '') === '';
}

/** Length of text as the terminal shows it, escape sequences excluded (for plain-width layouts). */
export function stripAnsi(text: string): string {
  return text.replace(/\x1b\[[0-9;]*m/g, '');
}
