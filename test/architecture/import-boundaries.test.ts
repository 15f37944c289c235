// The layering of docs/architecture.md, checked: imports between folders go one way, reach a
// folder only through its index.ts, and no files import each other in a circle (type-only
// imports included: a type cycle still ties two modules' designs together). Reads the sources'
// tokens (module-references.ts), so it sees every file, including those no test imports, and
// every way of reaching a module: the package's own name, import() and require() included.

import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { moduleReferences, sourceFiles } from './module-references.js';

const SRC = resolve(fileURLToPath(new URL('../../src', import.meta.url)));

/**
 * Which folders each folder may import from. A folder missing here may import nothing from the
 * rest of Glassbox. Lower layers first; see docs/architecture.md.
 */
const ALLOWED: Readonly<Record<string, readonly string[]>> = {
  // The ground floor, browser-safe: the shapes and names that cross layers and processes, as zod
  // schemas with derived types and plain enumerations. Imports nothing of Glassbox (only zod);
  // every folder below may import it, the web at run time too.
  protocol: [],
  workspace: ['protocol'],
  // Pure, browser-safe readings of run data that every face shares (the web may run them): only
  // types from the layers whose data they read (checked below).
  views: ['agent', 'protocol', 'sessions'],
  'terminal-text': [],
  version: [],
  model: ['protocol'],
  testing: ['model', 'protocol'],
  agent: ['model', 'protocol'],
  demo: ['model', 'protocol', 'testing'],
  permissions: ['agent', 'model', 'protocol', 'workspace'],
  sandbox: ['protocol', 'workspace'],
  tools: ['agent', 'model', 'protocol', 'sandbox', 'views', 'workspace'],
  compaction: ['agent', 'model', 'protocol', 'workspace'],
  sessions: ['agent', 'compaction', 'model', 'protocol'],
  mcp: ['agent', 'model', 'protocol', 'sandbox', 'terminal-text', 'workspace'],
  // User hooks around tool calls and prompts: read from the config files, run as processes (a
  // project's in the sandbox), their results read into the gate's decision.
  hooks: ['agent', 'permissions', 'protocol', 'sandbox', 'workspace'],
  telemetry: ['agent', 'compaction', 'model', 'protocol', 'sessions'],
  // File checkpoints and rewind: beside sessions/, writing through tools/' atomic commit.
  checkpoints: ['agent', 'protocol', 'sessions', 'tools', 'workspace'],
  runner: [
    'agent',
    'checkpoints',
    'compaction',
    'hooks',
    'mcp',
    'model',
    'permissions',
    'protocol',
    'sandbox',
    'sessions',
    'telemetry',
    'tools',
    'version',
    'views',
    'workspace',
  ],
  // The Agent Client Protocol face: at the level of server/, above runner/.
  acp: ['agent', 'model', 'protocol', 'runner', 'sessions', 'views', 'workspace'],
  server: ['agent', 'compaction', 'model', 'permissions', 'protocol', 'runner', 'sessions', 'telemetry', 'workspace'],
  tui: [
    'agent',
    'checkpoints',
    'compaction',
    'model',
    'permissions',
    'protocol',
    'runner',
    'sessions',
    'telemetry',
    'terminal-text',
    'views',
    'workspace',
  ],
  cli: [
    'acp',
    'agent',
    'checkpoints',
    'compaction',
    'demo',
    'mcp',
    'model',
    'permissions',
    'protocol',
    'runner',
    'sandbox',
    'server',
    'sessions',
    'telemetry',
    'terminal-text',
    'tui',
    'version',
    'views',
    'workspace',
  ],
  // The curated package entries `glassbox/agent`, `glassbox/model`, `glassbox/testing`.
  public: ['agent', 'model', 'testing'],
  // The package entry (src/index.ts, `glassbox`): the runner's layer and what it is built from.
  'index.ts': ['permissions', 'runner', 'sessions', 'tools', 'workspace'],
  // The browser bundle may only borrow types (erased at build time), from any layer's files; and
  // protocol/ (through its index.ts), which it may also run.
  web: ['agent', 'compaction', 'model', 'permissions', 'protocol', 'server', 'sessions', 'views', 'workspace'],
};

interface ImportEdge {
  from: string;
  to: string;
  typeOnly: boolean;
  specifier: string;
}

const PACKAGE = JSON.parse(readFileSync(join(SRC, '..', 'package.json'), 'utf8')) as {
  name: string;
  exports: Record<string, string | { import?: string }>;
};

/** `glassbox/model` → src/model/index.ts, by the package's own exports map. */
function selfReference(specifier: string): string | null {
  if (specifier !== PACKAGE.name && !specifier.startsWith(`${PACKAGE.name}/`)) return null;
  const entry = PACKAGE.exports[`.${specifier.slice(PACKAGE.name.length)}`];
  const target = typeof entry === 'string' ? entry : entry?.import;
  if (target === undefined) return join(SRC, '(unknown package entry)');
  return join(SRC, target.replace(/^\.\/dist\//, '').replace(/\.js$/, '.ts'));
}

function resolveTarget(from: string, specifier: string): string {
  const base = resolve(dirname(from), specifier);
  for (const candidate of [base.replace(/\.js$/, '.ts'), base.replace(/\.js$/, '.tsx'), base, `${base}.ts`, join(base, 'index.ts')]) {
    try {
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // try the next spelling
    }
  }
  return base;
}

/** A reference whose module is not written out (`import(name)`): the check cannot follow it. */
const COMPUTED = '(computed)';

function importsOf(file: string, text: string): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const reference of moduleReferences(text)) {
    const { specifier } = reference;
    if (specifier === null) {
      edges.push({
        from: file,
        to: join(SRC, COMPUTED),
        typeOnly: false,
        specifier: `a computed ${reference.kind} at line ${reference.line}`,
      });
      continue;
    }
    const target = specifier.startsWith('.') ? resolveTarget(file, specifier) : selfReference(specifier);
    // Other packages and node: builtins are not layers of ours.
    if (target !== null) edges.push({ from: file, to: target, typeOnly: reference.typeOnly, specifier });
  }
  return edges;
}

const folderOf = (file: string): string => relative(SRC, file).split('/')[0] ?? '';
const files = sourceFiles(SRC);
const edges = files.flatMap((file) => importsOf(file, readFileSync(file, 'utf8')));

function layerViolations(all: readonly ImportEdge[]): string[] {
  return all
    .filter((edge) => folderOf(edge.from) !== folderOf(edge.to))
    .filter((edge) => !(ALLOWED[folderOf(edge.from)] ?? []).includes(folderOf(edge.to)))
    .map((edge) => `${relative(SRC, edge.from)} → ${relative(SRC, edge.to)} (${edge.specifier})`);
}

describe('import boundaries', () => {
  test('the sources are read (the check is live)', () => {
    assert.ok(files.length > 150, `only ${files.length} files found`);
    assert.ok(edges.length > 500, `only ${edges.length} imports found`);
    assert.ok(edges.some((edge) => folderOf(edge.from) === 'runner' && folderOf(edge.to) === 'agent'));
  });

  test('every folder is in the layer table', () => {
    const folders = new Set(files.map(folderOf).filter((folder) => !folder.includes('.')));
    assert.deepEqual(
      [...folders].filter((folder) => !(folder in ALLOWED)),
      [],
    );
  });

  test('imports between folders go one way (downwards)', () => {
    assert.deepEqual(layerViolations(edges), []);
  });

  // The holes a review found in the line-matching check it replaced: each planted in a file of
  // the agent core (which may import only model/), and each must be seen.
  const planted: [string, string][] = [
    ["the package's own name", "import { createRunner } from 'glassbox';\n"],
    ['a subpath of the package', "import type { Gateway } from 'glassbox/testing';\nimport { x } from 'glassbox/testing';\n"],
    ['import() of a template literal', 'export const load = () => import(`../runner/index.js`);\n'],
    ['import() of a computed name', 'export const load = (name: string) => import(`../${name}/index.js`);\n'],
    [
      'createRequire',
      "import { createRequire } from 'node:module';\nconst load = createRequire(import.meta.url);\nexport const r = load('../runner/index.js');\n",
    ],
    [
      'an import after another statement on its line',
      "const a = 1; import { createRunner } from '../runner/index.js';\nexport { a, createRunner };\n",
    ],
    [
      'an import after a regular expression with a quote',
      "const re = /'/; import { createRunner } from '../runner/index.js';\nexport { re, createRunner };\n",
    ],
  ];
  for (const [what, text] of planted) {
    test(`the check sees ${what}`, () => {
      const file = join(SRC, 'agent', 'planted.ts');
      const wrong = layerViolations(importsOf(file, text));
      assert.ok(wrong.length > 0, `not seen: ${text}`);
      assert.ok(
        wrong.every((line) => line.startsWith('agent/planted.ts')),
        wrong.join('\n'),
      );
    });
  }

  test('comments, strings and template text name no module', () => {
    const text =
      "// import a from '../runner/index.js'\n/* import b from '../runner/index.js' */\nconst s = \"import c from '../runner/index.js'\";\nconst t = `import d from '../runner/index.js' ${s}`;\nexport { s, t };\n";
    assert.deepEqual(importsOf(join(SRC, 'agent', 'planted.ts'), text), []);
  });

  test("a folder is entered only through its index.ts (the browser bundle's type-only imports excepted)", () => {
    const wrong = edges
      .filter((edge) => folderOf(edge.from) !== folderOf(edge.to))
      .filter((edge) => !(folderOf(edge.from) === 'web' && edge.typeOnly))
      .filter((edge) => relative(SRC, edge.to) !== `${folderOf(edge.to)}/index.ts`)
      .map((edge) => `${relative(SRC, edge.from)} imports ${edge.specifier}`);
    assert.deepEqual(wrong, []);
  });

  test('the browser bundle borrows only types from the server side (and runs the shared views and the protocol)', () => {
    const runnable = new Set(['web', 'views', 'protocol']);
    const wrong = edges
      .filter((edge) => folderOf(edge.from) === 'web' && !runnable.has(folderOf(edge.to)) && !edge.typeOnly)
      .map((edge) => `${relative(SRC, edge.from)} imports ${edge.specifier}`);
    assert.deepEqual(wrong, []);
  });

  test('views/ runs nothing but itself: no package, no node: module, other layers only as types (the browser runs it)', () => {
    const viewFiles = files.filter((file) => folderOf(file) === 'views');
    assert.ok(viewFiles.length >= 3);
    const wrong = viewFiles.flatMap((file) =>
      moduleReferences(readFileSync(file, 'utf8'))
        .filter((reference) => reference.specifier === null || !(reference.specifier.startsWith('./') || reference.typeOnly))
        .map((reference) => `${relative(SRC, file)} imports ${reference.specifier ?? 'a computed module'}`),
    );
    assert.deepEqual(wrong, []);
  });

  test('protocol/ imports nothing but zod and its own files (the browser runs it)', () => {
    const protocolFiles = files.filter((file) => folderOf(file) === 'protocol');
    assert.ok(protocolFiles.length >= 5);
    const wrong = protocolFiles.flatMap((file) =>
      moduleReferences(readFileSync(file, 'utf8'))
        .filter((reference) => reference.specifier === null || !(reference.specifier.startsWith('./') || reference.specifier === 'zod'))
        .map((reference) => `${relative(SRC, file)} imports ${reference.specifier ?? 'a computed module'}`),
    );
    assert.deepEqual(wrong, []);
  });

  test('no files import each other in a circle, type-only imports included', () => {
    const graph = new Map<string, Set<string>>();
    for (const edge of edges) {
      if (!graph.has(edge.from)) graph.set(edge.from, new Set());
      graph.get(edge.from)?.add(edge.to);
    }
    // Tarjan's strongly connected components: any component of more than one file is a cycle.
    let index = 0;
    const indexes = new Map<string, number>();
    const lowlinks = new Map<string, number>();
    const stack: string[] = [];
    const onStack = new Set<string>();
    const cycles: string[][] = [];
    const visit = (node: string): void => {
      indexes.set(node, index);
      lowlinks.set(node, index);
      index++;
      stack.push(node);
      onStack.add(node);
      for (const next of graph.get(node) ?? []) {
        if (!indexes.has(next)) {
          visit(next);
          lowlinks.set(node, Math.min(lowlinks.get(node) ?? 0, lowlinks.get(next) ?? 0));
        } else if (onStack.has(next)) {
          lowlinks.set(node, Math.min(lowlinks.get(node) ?? 0, indexes.get(next) ?? 0));
        }
      }
      if (lowlinks.get(node) === indexes.get(node)) {
        const component: string[] = [];
        let member: string | undefined;
        do {
          member = stack.pop();
          if (member === undefined) break;
          onStack.delete(member);
          component.push(relative(SRC, member));
        } while (member !== node);
        if (component.length > 1) cycles.push(component.sort());
      }
    };
    for (const node of graph.keys()) if (!indexes.has(node)) visit(node);
    assert.deepEqual(cycles, []);
  });
});
