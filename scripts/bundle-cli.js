#!/usr/bin/env node
// Bundles the CLI (src/cli/main.ts) into dist/bundle/: one entry file plus chunks that load only
// when a command needs them (runner and tools for exec, server, interactive session, compaction's
// tokenizer…). Node then reads and compiles a few large files instead of resolving hundreds of
// small ones, which is most of the start-up time (docs/benchmarks.md, "Start-up"). The library
// entry points (package.json "exports") stay tsc's per-file output in dist/; this is additional.
// Linked source maps: `GLASSBOX_DEBUG=1` turns them on (bin/glassbox.js) for stack traces in src/.
import { build } from 'esbuild';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'src');
const DIST = join(root, 'dist');

// Loaded from node_modules as they are: they find files next to themselves (the tree-sitter
// runtime its .wasm, ripgrep its binary), or are large and needed only by an optional feature,
// where bundling buys nothing. ink and react are bundled, in React's production build (below).
const EXTERNAL = [
  'web-tree-sitter',
  'tree-sitter-bash',
  '@vscode/ripgrep',
  // Only reachable from ink's React DevTools hook, which inkWithoutDevtools turns off.
  'react-devtools-core',
  '@modelcontextprotocol/sdk',
  '@modelcontextprotocol/sdk/*',
  '@opentelemetry/*',
  'gpt-tokenizer',
  'gpt-tokenizer/*',
  // node-postgres: only for a team server's --database-url; it also names an optional native module.
  'pg',
  'pg-native',
];

// Sources find their data files (tool descriptions, prompts, package.json, the web root) with
// `new URL('<relative>', import.meta.url)`. In a bundle import.meta.url is the chunk's, so each such
// URL is rewritten to point from dist/bundle/ at the same file in dist/ (build.js copies the data
// files there) — or, for paths outside src/ such as package.json, at the same place as before.
const RELATIVE_URL = /new URL\((['"])(\.{1,2}\/[^'"]*)\1, import\.meta\.url\)/g;
// Any other `new URL(…, import.meta.url)` (a template literal, a variable) would keep pointing next to
// the chunk, where no data file is: the bundle would build and fail at run time. Refuse it here.
const ANY_META_URL = /new URL\(([^)]*?),\s*import\.meta\.url\)/g;
export function nonLiteralDataUrls(source) {
  const found = [];
  for (const match of source.matchAll(ANY_META_URL)) {
    if (!/^(['"])\.{1,2}\/[^'"]*\1$/.test(match[1].trim())) found.push(match[0]);
  }
  return found;
}
/** The rewrite for a bundle built into `bundleDir` from tsc's output in `dist`. */
const dataUrls = (dist, bundleDir) => ({
  name: 'data-urls',
  setup(builder) {
    builder.onLoad({ filter: /\.ts$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      if (!args.path.startsWith(src + sep) || !source.includes('import.meta.url')) return { contents: source, loader: 'ts' };
      const loose = nonLiteralDataUrls(source);
      if (loose.length > 0) {
        throw new Error(
          `${relative(root, args.path)}: name data files by a literal relative URL (the bundle cannot follow ${loose.join(', ')})`,
        );
      }
      const compiledDir = dirname(join(dist, relative(src, args.path)));
      const contents = source.replace(RELATIVE_URL, (_match, quote, path) => {
        let target = relative(bundleDir, join(compiledDir, path)).split(sep).join('/');
        if (path.endsWith('/')) target += '/';
        return `new URL(${quote}${target.startsWith('.') ? target : `./${target}`}${quote}, import.meta.url)`;
      });
      return { contents, loader: 'ts' };
    });
  },
});

// zod's namespace object re-exports every locale (300 KB of the 1.4 MB `exec` loads); Glassbox
// only uses the English messages zod configures itself with, so the others are left out.
const englishOnlyZodLocales = {
  name: 'zod-english-only',
  setup(builder) {
    builder.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) => {
      if (!/[\\/]zod[\\/]v4[\\/]/.test(args.importer)) return undefined;
      return { path: join(dirname(args.importer), '..', 'locales', 'en.js'), namespace: 'zod-locales' };
    });
    builder.onLoad({ filter: /.*/, namespace: 'zod-locales' }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(args.path)};`,
      resolveDir: dirname(args.path),
      loader: 'js',
    }));
  },
};

// ink connects React DevTools, and reads its own package.json next to itself, when `DEV=true` is
// in the environment: a variable a user may well have set for something else. Bundled, that file is
// not next to it any more, and the interactive session is not a React app to debug; so ink's
// switch is always off.
const inkWithoutDevtools = {
  name: 'ink-without-devtools',
  setup(builder) {
    builder.onLoad({ filter: /[\\/]ink[\\/]build[\\/]utils\.js$/ }, () => ({
      contents: 'export const isDev = () => false;',
      loader: 'js',
    }));
  },
};

/**
 * Which command lines open the interactive session, read off the built program itself (so it
 * cannot drift from the commands): bin/glassbox.js paints the session's editor before loading the
 * CLI only for those (src/tui/first-frame.ts, `EntryArgv`).
 */
export async function entryArgv(bundleDir) {
  const { buildProgram } = await import(pathToFileURL(join(bundleDir, 'cli.js')).href);
  return entryArgvOf(buildProgram());
}

/** The same, of a commander program (tests read it off src/cli/main.ts's). */
export function entryArgvOf(program) {
  const spellings = (options) => options.flatMap((option) => [option.short, option.long]).filter(Boolean);
  const takesValue = (command) => spellings(command.options.filter((option) => option.required || option.optional));
  const chat = program.commands.find((command) => command.name() === 'chat');
  if (chat === undefined) throw new Error('bundle-cli: the program has no chat command');
  const help = program.createHelp();
  return {
    sessionCommands: [chat.name(), ...chat.aliases()],
    rootValueOptions: takesValue(program),
    chatValueOptions: takesValue(chat),
    exitOptions: spellings(help.visibleOptions(program).filter((option) => option.long === '--help' || option.long === '--version')),
  };
}

/**
 * The built-in tools' argument schemas as JSON Schema, keyed as src/agent/tool.ts registers them
 * (`builtInSchema`): the bundle reads this file instead of running z.toJSONSchema at start-up. Read
 * off tsc's output in `dist`, by the same conversion the sources use (`toolJsonSchema`).
 */
export async function toolSchemas(dist) {
  const agent = await import(pathToFileURL(join(dist, 'agent', 'index.js')).href);
  await import(pathToFileURL(join(dist, 'tools', 'index.js')).href);
  return toolSchemasOf(agent);
}

/** The same, of an agent module (`builtInSchemas`, `toolJsonSchema`) whose tools are loaded (tests read the sources'). */
export function toolSchemasOf({ builtInSchemas, toolJsonSchema }) {
  const schemas = [...builtInSchemas()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (schemas.length === 0) throw new Error('bundle-cli: no built-in tool schemas registered');
  return Object.fromEntries(schemas.map(([key, schema]) => [key, toolJsonSchema(schema)]));
}

/** Bundles into `<dist>/bundle/`; `dist` is where tsc's output and the data files are (build.js stages it). */
export async function bundleCli({ dist = DIST } = {}) {
  const bundleDir = join(dist, 'bundle');
  rmSync(bundleDir, { recursive: true, force: true }); // no chunks left from an earlier build
  const result = await esbuildCli(dist, bundleDir);
  writeFileSync(join(bundleDir, 'entry-argv.json'), `${JSON.stringify(await entryArgv(bundleDir), null, 2)}\n`);
  writeFileSync(join(bundleDir, 'tool-schemas.json'), `${JSON.stringify(await toolSchemas(dist))}\n`);
  return result;
}

function esbuildCli(dist, bundleDir) {
  return build({
    absWorkingDir: root,
    // first-frame: the interactive session's editor, painted by bin/glassbox.js before cli loads.
    entryPoints: { cli: join(src, 'cli', 'main.ts'), 'first-frame': join(src, 'tui', 'first-frame.ts') },
    outdir: bundleDir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external: EXTERNAL,
    // React's production build: its development build is several times larger, and checks and
    // warns on every render (the interactive session started with ~0.4 s more CPU).
    define: { 'process.env.NODE_ENV': '"production"' },
    // Bundled CommonJS dependencies (commander, ignore, picomatch) call require() for Node's modules.
    banner: {
      js: "import { createRequire as __glassboxCreateRequire } from 'node:module';\nconst require = __glassboxCreateRequire(import.meta.url);",
    },
    chunkNames: 'chunk-[hash]',
    minifyWhitespace: true,
    minifySyntax: true,
    minifyIdentifiers: true,
    keepNames: true,
    sourcemap: 'linked',
    sourcesContent: false,
    metafile: true,
    logLevel: 'warning',
    plugins: [dataUrls(dist, bundleDir), englishOnlyZodLocales, inkWithoutDevtools],
  });
}

// `node scripts/bundle-cli.js [--analyze]`: rebuild the bundle alone (after a tsc build).
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const result = await bundleCli();
  if (process.argv.includes('--analyze')) {
    const { analyzeMetafile } = await import('esbuild');
    process.stdout.write(await analyzeMetafile(result.metafile));
  }
}
