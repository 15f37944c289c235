// "Which dialect is this wire" is decided in one place: the dialect registry
// (src/model/dialects.ts) and each dialect's own folder (src/model/<dialect>/). Anywhere else, a
// comparison with a wire name (`wireApi === 'anthropic'`, `case 'chat':`) is knowledge a new
// dialect would have to find and change by hand, so this test refuses it. The fake provider's
// wires are tables keyed by wire name (`{ [Name in WireApi]: … }`), which the compiler checks
// for completeness instead.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { DIRECT_ENV_VARS } from '../../src/cli/cli-env.js';
import { DIALECT_LIST, WIRE_APIS } from '../../src/model/index.js';
import { tokenize, sourceFiles, type Token } from './module-references.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SRC = join(ROOT, 'src');

/** The dialect folders: the folders under src/model/ that hold a `*-dialect.ts` descriptor. */
function dialectFolders(): string[] {
  const model = join(SRC, 'model');
  return readdirSync(model).filter((name) => {
    const path = join(model, name);
    return statSync(path).isDirectory() && readdirSync(path).some((file) => file.endsWith('-dialect.ts'));
  });
}

const WIRE_NAMES = new Set(DIALECT_LIST.flatMap((dialect) => [dialect.name, ...dialect.aliases]));

function isOperator(tokens: readonly Token[], from: number, step: 1 | -1): boolean {
  // `===`, `!==`, `==`, `!=` arrive as one-character punctuation tokens.
  const chars: string[] = [];
  for (let i = from; i >= 0 && i < tokens.length && chars.length < 3; i += step) {
    const token = tokens[i]!;
    if (token.kind !== 'punct' || !'=!'.includes(token.text)) break;
    chars.push(token.text);
  }
  const text = (step === 1 ? chars : chars.reverse()).join('');
  return ['==', '===', '!=', '!=='].includes(text);
}

/** Each comparison with a wire name in the text: `x === 'chat'`, `'chat' !== x`, `case 'chat':`. */
export function wireNameComparisons(text: string): Array<{ line: number; name: string }> {
  const tokens = tokenize(text);
  const found: Array<{ line: number; name: string }> = [];
  tokens.forEach((token, index) => {
    if ((token.kind !== 'string' && token.kind !== 'template') || token.value === undefined || !WIRE_NAMES.has(token.value)) return;
    const previous = tokens[index - 1];
    const compared =
      isOperator(tokens, index - 1, -1) || isOperator(tokens, index + 1, 1) || (previous?.kind === 'word' && previous.text === 'case');
    if (compared) found.push({ line: token.line, name: token.value });
  });
  return found;
}

describe('wire names', () => {
  test('the registry lists exactly the wire APIs, each once, with its own folder', () => {
    assert.deepEqual(
      DIALECT_LIST.map((dialect) => dialect.name),
      [...WIRE_APIS],
    );
    assert.equal(dialectFolders().length, WIRE_APIS.length, `dialect folders: ${dialectFolders().join(', ')}`);
  });

  test('the check sees each way of comparing and nothing else', () => {
    const planted = [
      "if (wireApi === 'anthropic') x();",
      "const a = 'chat' !== wireApi;",
      'switch (w) {\n  case `responses`:\n}',
      "if (w == 'chat-completions') y();",
    ];
    for (const text of planted) assert.equal(wireNameComparisons(text).length, 1, text);
    const innocent = [
      "// wireApi === 'anthropic' in a comment",
      "const wireApi: WireApi = 'chat';",
      'const text = "wireApi === \'chat\'";',
      "const table = { chat: 1, 'anthropic': 2 };",
      "if (provider === 'openai') z();",
    ];
    for (const text of innocent) assert.deepEqual(wireNameComparisons(text), [], text);
  });

  test('no source file outside the dialect folders and the registry compares with a wire name', () => {
    const allowed = [join(SRC, 'model', 'dialects.ts'), ...dialectFolders().map((name) => join(SRC, 'model', name) + sep)];
    const offenders: string[] = [];
    for (const file of sourceFiles(SRC)) {
      if (allowed.some((path) => file === path || file.startsWith(path))) continue;
      for (const hit of wireNameComparisons(readFileSync(file, 'utf8')))
        offenders.push(`${relative(ROOT, file)}:${hit.line} compares with '${hit.name}'`);
    }
    assert.deepEqual(offenders, [], 'ask src/model/dialects.ts (or a dialect descriptor) instead');
  });

  test("--wire-api's help names every dialect (written out so --help loads no gateway)", () => {
    const options = readFileSync(join(SRC, 'cli', 'model-options.ts'), 'utf8');
    const help = /'--wire-api <api>', '([^']*)'/.exec(options)?.[1] ?? '';
    for (const dialect of DIALECT_LIST) assert.match(help, new RegExp(`\\b${dialect.name}\\b`), `--wire-api help: ${help}`);
  });

  test("each provider family's variables are read with the rule that blank means unset (cli-env.ts)", () => {
    for (const { provider } of DIALECT_LIST) {
      for (const name of [provider.keyVariable, provider.baseUrlVariable])
        assert.ok(DIRECT_ENV_VARS.includes(name), `${name} is not in DIRECT_ENV_VARS`);
    }
  });
});
