// Loads the bash grammar (WebAssembly, from node_modules, never the network) on first use and
// classifies command strings synchronously afterwards. Loading costs tens of milliseconds, so it
// happens once per process and only when a shell command is first classified; even the
// tree-sitter runtime is imported then, not when this module is.

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, isAbsolute, join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import type { Parser } from 'web-tree-sitter';
import type { CommandClassification } from './command-classification.js';
import type { CommandRuleView } from './command-classification.js';
import { readCommandForRules } from './command-rule-view.js';
import { judgeCommands } from './judge-commands.js';
import { parseLiteralCommand } from './literal-command.js';
import { treeSitterDisagreement } from './tree-sitter-agreement.js';

/** Longer strings are not parsed: classifying them would cost more than asking. */
export const MAX_CLASSIFIED_COMMAND_LENGTH = 64 * 1024;

export interface ClassifyOptions {
  /** Absolute real path of the project root; literal paths must stay inside it. */
  root: string;
  /** Absolute directory the command runs in (defaults to the root). */
  cwd?: string;
  /**
   * The PATH the command will run with (default: this process's): outside the sandbox a program
   * found first in a directory inside the project is not known safe.
   */
  searchPath?: string;
}

function unsafe(reason: string, commands: string[] = []): CommandClassification {
  return { safe: false, reason: `needs approval: ${reason}`, commands, unsafePrefixes: null };
}

export class CommandClassifier {
  /**
   * @internal Made by `loadCommandClassifier`. Kept out of the declarations: web-tree-sitter's
   * own types do not compile without `skipLibCheck`, and embedders should not need it.
   */
  constructor(private readonly parser: Parser) {}

  classify(command: string, options: ClassifyOptions): CommandClassification {
    if (!isAbsolute(options.root)) throw new TypeError(`classify: root must be an absolute path, got ${JSON.stringify(options.root)}`);
    const cwd = options.cwd ?? options.root;
    if (!isAbsolute(cwd)) throw new TypeError(`classify: cwd must be an absolute path, got ${JSON.stringify(cwd)}`);
    if (command.trim() === '') return unsafe('the command is empty');
    if (command.length > MAX_CLASSIFIED_COMMAND_LENGTH)
      return unsafe(`the command is longer than ${MAX_CLASSIFIED_COMMAND_LENGTH} characters`);
    if (command.includes('\0')) return unsafe('the command contains a NUL byte');
    // Only a string with nothing left to expand can be judged by its words; anything else needs
    // the sandbox or a person, and no approve-for-session grant covers more than that exact string.
    const literal = parseLiteralCommand(command);
    if (!literal.literal) return unsafe(literal.reason, literal.commands);
    const verdict = judgeCommands(literal.commands, options.root, cwd, options.searchPath ?? process.env.PATH ?? '');
    const tree = this.parser.parse(command);
    if (tree === null) return unsafe('the command could not be parsed');
    try {
      // Grant keys come from our reading of the words; if the grammar reads them differently, no
      // grant may cover the string, and it is not known safe.
      const disagreement = treeSitterDisagreement(tree, literal.commands);
      if (disagreement !== null) {
        const reason = verdict.safe ? `${disagreement}, so its words cannot be trusted` : verdict.reason.replace(/^needs approval: /, '');
        return unsafe(reason, verdict.commands);
      }
    } finally {
      tree.delete();
    }
    return verdict;
  }

  /** The command as permission rules from config files read it (command-rule-view.ts). */
  ruleView(command: string): CommandRuleView {
    if (command.length > MAX_CLASSIFIED_COMMAND_LENGTH) return { exact: null, commands: [], unreadable: true };
    return readCommandForRules(this.parser, command);
  }
}

let loading: Promise<CommandClassifier> | null = null;

/** Parsed once at load, so the first real command does not pay for compiling the parser's code. */
const WARM_UP_COMMAND = 'cd src && grep -rn "a b" . | head -n 5; ls -la 2>/dev/null || echo ok > /dev/null';

async function load(): Promise<CommandClassifier> {
  // WebAssembly: the baseline compiler only, and compiled on this thread. Left alone, V8 re-compiles
  // the grammar's hot functions with its optimising compiler in the background (the lexer is one
  // 160 KB function): 1–2 s of CPU and ~45 MB that, on two cores, delay the first shell call by a
  // second, for parses that take well under a millisecond either way; and its asynchronous
  // compilation waits on background threads, which on a busy machine took 150 ms where compiling
  // here (lazily: functions are compiled on first call) takes 5 ms (docs/benchmarks.md, "First
  // shell call"). The flags are process-wide and read whenever a module or function is compiled or
  // tiered up, so they stay set. The CLI sets them at start (src/cli/main.ts) for the only other
  // WebAssembly a run executes, undici's HTTP parser, which the first model request compiles.
  setFlagsFromString('--liftoff-only');
  setFlagsFromString('--no-wasm-async-compilation');
  // Node 24's V8 no longer reads --liftoff-only once it has started: the grammar was tiered up in
  // the background again, and every process waited seconds at exit for that compile to finish.
  // A tiering budget no parse reaches keeps it on the baseline code on both.
  setFlagsFromString('--wasm-tiering-budget=1000000000');
  const { Language, Parser } = await import('web-tree-sitter');
  const require = createRequire(import.meta.url);
  // The runtime's module is compiled and instantiated synchronously (lazily compiled, it takes a
  // few milliseconds); Emscripten's asynchronous default hops between threads several times,
  // which costs tens of milliseconds more on a busy machine.
  const runtime = require.resolve('web-tree-sitter/tree-sitter.wasm');
  await Parser.init({
    instantiateWasm(imports: WebAssembly.Imports, done: (instance: WebAssembly.Instance, module: WebAssembly.Module) => void) {
      const module = new WebAssembly.Module(readFileSync(runtime));
      done(new WebAssembly.Instance(module, imports), module);
      return {};
    },
  });
  // Only the package's .wasm is used (its native binding and install script are not). No smaller
  // well-kept source of the same grammar is on npm: the wasm-only bundles are larger or carry an
  // older grammar (docs/benchmarks.md, "Decisions measured").
  const packageJson = require.resolve('tree-sitter-bash/package.json');
  const language = await Language.load(join(dirname(packageJson), 'tree-sitter-bash.wasm'));
  const parser = new Parser();
  parser.setLanguage(language);
  const classifier = new CommandClassifier(parser);
  classifier.classify(WARM_UP_COMMAND, { root: dirname(packageJson) });
  return classifier;
}

/** The shared classifier, loaded on the first call. A failed load is retried on the next call. */
export function loadCommandClassifier(): Promise<CommandClassifier> {
  if (loading === null) {
    // Parts of the load settle through V8's own task queue (WebAssembly), which does not keep
    // Node's event loop alive: a process (or test file) whose only pending work is this load
    // would otherwise exit with it unsettled. The timer holds the loop open until it settles.
    const keepAlive = setInterval(() => {}, 60_000);
    loading = load()
      .catch((error: unknown) => {
        loading = null;
        throw new Error(`Could not load the bash grammar for the command classifier: ${(error as Error).message}`, { cause: error });
      })
      .finally(() => clearInterval(keepAlive));
  }
  return loading;
}
