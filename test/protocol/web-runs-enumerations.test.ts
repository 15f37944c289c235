// The web bundle runs protocol/'s enumerations and nothing else of it: they are plain arrays, while
// a schema would bring zod into the browser (about 100 KB; src/web/vite.config.ts lets the bundle
// drop the schemas only as long as nothing there uses one). Types are erased and may be anything.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import * as enumerations from '../../src/protocol/enumerations.js';
import { sourceFiles } from '../architecture/module-references.js';

const SRC = resolve(fileURLToPath(new URL('../../src', import.meta.url)));
const RUNNABLE = new Set(Object.keys(enumerations));

/** The value names a text imports or re-exports from protocol/ (`type` ones left out). */
export function protocolValues(text: string): string[] {
  const names: string[] = [];
  const statement = /\b(import|export)\s+(type\s+)?\{([^}]*)\}\s*from\s*['"][^'"]*\/protocol\/index\.js['"]/g;
  for (const match of text.matchAll(statement)) {
    if (match[2] !== undefined) continue;
    for (const part of (match[3] ?? '').split(',')) {
      const name = part.trim();
      if (name === '' || name.startsWith('type ')) continue;
      names.push(name.split(/\s+as\s+/)[0] ?? name);
    }
  }
  // `import * as` or a default import would take everything.
  for (const match of text.matchAll(/\b(?:import|export)\s+(?!type\b)(\*[^'"]*|\w+)\s+from\s*['"][^'"]*\/protocol\/index\.js['"]/g)) {
    names.push(match[1] ?? '*');
  }
  return names;
}

describe('the web runs only protocol enumerations', () => {
  test('value imports are read, type imports are not', () => {
    assert.deepEqual(protocolValues("import { WIRE_APIS, type Health } from '../../protocol/index.js';"), ['WIRE_APIS']);
    assert.deepEqual(protocolValues("import type { Health } from '../../protocol/index.js';"), []);
    assert.deepEqual(protocolValues("export { healthSchema as schema } from '../../protocol/index.js';"), ['healthSchema']);
    assert.deepEqual(protocolValues("import * as protocol from '../../protocol/index.js';"), ['* as protocol']);
  });

  test('every value the web takes from protocol/ is an enumeration', () => {
    const webFiles = sourceFiles(join(SRC, 'web'));
    const used = webFiles.flatMap((file) => protocolValues(readFileSync(file, 'utf8')).map((name) => ({ file, name })));
    assert.ok(
      used.some(({ name }) => name === 'WIRE_APIS'),
      'the web form takes the wire APIs from protocol/',
    );
    const wrong = used.filter(({ name }) => !RUNNABLE.has(name)).map(({ file, name }) => `${relative(SRC, file)}: ${name}`);
    assert.deepEqual(wrong, []);
  });
});
