// `glassbox exec`: one turn of the agent from the terminal. The answer goes to stdout (or, with
// --json, every run event as a JSON line); progress, warnings and errors go to stderr.

import { randomUUID } from 'node:crypto';
import { ApprovalRegistry, isTerminalEvent, type RunEvent, type TerminalRunEvent } from '../agent/index.js';
import { EXIT } from './usage-error.js';
import { terminalJson, visibleText } from '../terminal-text/index.js';
import { attachTerminalApprover } from './terminal-approver.js';
import { exactAllowRule, saveAllowRule } from '../permissions/index.js';
import { ProgressPrinter } from './progress-printer.js';
import { RunTally } from './run-tally.js';
import { resolveTurnConfig, turnRunnerSettings } from './run-config.js';
import { sandboxNotice, sandboxState } from './sandbox-notice.js';
import { openModel } from './open-model.js';
import { configKeyWarnings } from './config-key-warnings.js';
import { processOutputGuard } from './output-guard.js';
import { forgetDatabaseUrlVariable, openSessionStore, resolveDatabaseUrl, type OpenedSessionStore } from './session-store-option.js';
import type { ExecHeadStart } from './exec-head-start.js';
import { resolveRoot } from '../workspace/index.js';
import { loadFetch, outputSchemaInstruction, type BudgetModel, type ModelPricing } from '../model/index.js';
import {
  headlessGateway,
  resolveHeadlessSettings,
  schemaRetryPrompt,
  type HeadlessCliOptions,
  type HeadlessSettings,
} from './headless-options.js';
import { checklistLines, planTracker, type Checklist } from '../views/index.js';

/** What `exec --plan` prints: the plan as a checklist (when the model kept one), then its answer. */
function planAnswer(plan: Checklist | null, answer: string): string {
  if (plan === null) return answer;
  const lines = checklistLines(plan);
  return answer.trim() === '' ? lines.join('\n') : `${lines.join('\n')}\n\n${answer}`;
}

export interface ExecCliOptions extends HeadlessCliOptions {
  model?: string;
  databaseUrl?: string;
  baseUrl?: string;
  wireApi?: string;
  cd?: string;
  home?: string;
  maxRounds?: string;
  tokenBudget?: string;
  json?: boolean;
  resume?: string;
  /** `--command <name>`: the prompt words are that prompt command's arguments. */
  command?: string;
  sandbox?: string;
  approvalPolicy?: string;
  network?: boolean;
  compactAt?: string;
  contextWindow?: string;
  demo?: boolean;
  demoIntro?: boolean;
  otlpEndpoint?: string;
  traceContent?: boolean;
  /** `--plan`: a plan-mode turn (read-only, no writes); the plan is printed and nothing is carried out. */
  plan?: boolean;
}

/** Exit code for a run that ended with this terminal event. */
export function exitCodeFor(terminal: TerminalRunEvent): number {
  if (terminal.type === 'run_succeeded') return EXIT.ok;
  if (terminal.type === 'run_cancelled') return EXIT.cancelled;
  if (terminal.error.code === 'BUDGET_EXCEEDED') return EXIT.budgetExceeded;
  // Failures a user fixes in their configuration (key, model name, account, server flags), not by retrying.
  return CONFIGURATION_ERRORS.has(terminal.error.code) ? EXIT.usage : EXIT.failed;
}

const CONFIGURATION_ERRORS: ReadonlySet<string> = new Set(['AUTH_FAILED', 'NOT_FOUND', 'QUOTA_EXCEEDED', 'PROVIDER_MISCONFIGURED']);

/** Read by the budget for a model the run did not price: it refuses the call rather than guess. */
const UNPRICED: BudgetModel = { pricing: null, maxOutputTokens: 0 };

function unpricedModels(model: string, fallback: string | null, models: ReadonlyMap<string, BudgetModel>): string[] {
  const priced = (name: string): ModelPricing | null => models.get(name)?.pricing ?? null;
  return [model, ...(fallback === null ? [] : [fallback])].filter((name) => priced(name) === null);
}

/** What was wrong with a succeeded turn's answer against --output-schema, or null (it matched, or no schema, or the turn did not succeed). */
function failedSchemaCheck(terminal: TerminalRunEvent, check: { ok: true } | { ok: false; error: string } | null): string | null {
  return terminal.type === 'run_succeeded' && check !== null && !check.ok ? check.error : null;
}

/** The git lines of the environment block for `root`; never rejects (the runner would gather them anew). */
function startGitSnapshot(root: string, home: string): Promise<string> | undefined {
  let realRoot: string;
  try {
    realRoot = resolveRoot(root);
  } catch {
    return undefined;
  }
  const snapshot = import('../sandbox/index.js').then(({ gitSnapshot, detectSandbox }) =>
    gitSnapshot({ root: realRoot, glassboxHome: home, detectSandbox }),
  );
  snapshot.catch(() => {});
  return snapshot;
}

/**
 * `headStart`: what main.ts started before this module loaded (exec-head-start.ts); used when it was
 * started for the root and home this run resolves to.
 */
export async function execCommand(prompt: string, options: ExecCliOptions, headStart: ExecHeadStart | null = null): Promise<number> {
  const tally = new RunTally();
  if (prompt.trim() === '') {
    process.stderr.write('glassbox: the prompt is empty; say what the agent should do\n');
    return EXIT.usage;
  }
  const config = resolveTurnConfig(options);
  // Before anything starts: a bad schema file or budget is a usage error that costs nothing.
  const headless = await resolveHeadlessSettings(options);
  const started = headStart !== null && headStart.root === config.root && headStart.home === config.home ? headStart : null;
  // Read once and out of the environment before the first child (the git snapshot) starts.
  const databaseUrl = started !== null ? started.databaseUrl : resolveDatabaseUrl(options.databaseUrl, config.home);
  forgetDatabaseUrlVariable();
  // Started now, so that compiling the runner's code overlaps the checks and opening the model.
  const runnerModule = import('../runner/index.js');
  runnerModule.catch(() => {});
  // A new session's environment block needs `git status` in the sandbox (a bwrap run after a scan
  // of the project): started now, it runs in child processes while the runner's code compiles.
  const gitSnapshot = options.resume ? undefined : started !== null ? started.gitSnapshot : startGitSnapshot(config.root, config.home);
  // The first request waits for that `git status` (a sandboxed child process): Node's fetch, which
  // it would load lazily (~40 ms of compiling), is loaded while the child runs.
  if (!config.demo && started?.gitStarted !== undefined) void started.gitStarted.then(loadFetch);
  // Whether bubblewrap works (a bwrap run, ~10–30 ms) is asked now too, beside the loading, not
  // after it: the notice it may print comes before the run, so the answer is awaited before it.
  const sandboxAnswer = sandboxState(config.sandbox);
  sandboxAnswer.catch(() => {});
  // Before the model opens: a bad endpoint is a usage error. Reads the environment only.
  const { resolveTelemetrySettings } = await import('../telemetry/index.js');
  const telemetry = resolveTelemetrySettings({ otlpEndpoint: options.otlpEndpoint, traceContent: options.traceContent });

  const configWarnings = configKeyWarnings(config.home, config.root);
  const model = await openModel(config, { stderr: process.stderr, intro: options.demoIntro === true });
  for (const warning of await configWarnings) process.stderr.write(`glassbox: warning: ${warning}\n`);
  const notice = sandboxNotice(await sandboxAnswer);
  if (notice !== null) process.stderr.write(`glassbox: ${notice}\n`);
  const approvals = new ApprovalRegistry();
  const controller = new AbortController();
  let interrupts = 0;
  let terminatedBy: NodeJS.Signals | null = null;
  const onSignal = (signal: NodeJS.Signals): void => {
    interrupts += 1;
    terminatedBy ??= signal;
    if (interrupts === 1) {
      const how = signal === 'SIGINT' ? 'Ctrl-C' : signal;
      process.stderr.write(
        `\nglassbox: cancelling the run (${signal === 'SIGINT' ? 'Ctrl-C again to quit at once' : 'signal again to quit at once'})…\n`,
      );
      controller.abort(`Cancelled by the user (${how}).`);
    } else {
      process.exit(signal === 'SIGTERM' ? EXIT.terminated : EXIT.cancelled);
    }
  };
  const onSigint = (): void => onSignal('SIGINT');
  const onSigterm = (): void => onSignal('SIGTERM');
  process.on('SIGINT', onSigint);
  process.on('SIGTERM', onSigterm);
  const detachApprover = attachTerminalApprover(approvals, process.stdin, process.stderr, {
    onInterrupt: onSigint,
    alwaysAllow: {
      ruleFor: (pending) => exactAllowRule(pending.toolName, pending.arguments, config.root),
      save: (rule) => saveAllowRule(config.home, rule),
    },
  });

  // A closed stdout (`--json | head -1`) means nobody reads the run any more: cancel it as Ctrl-C
  // would, so the session still gets its end record, and exit 141 like any writer to a closed pipe.
  const outputs = processOutputGuard();
  let cancelledByClosedStdout = false;
  const stopWatchingStdout = outputs.onStdoutClosed(() => {
    cancelledByClosedStdout = true;
    process.stderr.write('\nglassbox: stdout was closed; cancelling the run…\n');
    controller.abort('Cancelled: stdout was closed by its reader.');
  });

  const printer = new ProgressPrinter();
  // The last answer's check against --output-schema, made as its event is printed.
  // A holder, not a `let`: it is set inside the event callback, which narrowing cannot see.
  const schema: { check: ReturnType<NonNullable<HeadlessSettings['outputSchema']>['check']> | null } = { check: null };
  const plan = planTracker();
  const onEvent = (event: RunEvent): void => {
    tally.observe(event);
    plan.observe(event);
    // The last line also says what a script asks of a whole run: the session, its cost, its time.
    const totals = isTerminalEvent(event) ? tally.totals() : undefined;
    if (event.type === 'run_succeeded' && headless.outputSchema !== null) schema.check = headless.outputSchema.check(event.answer);
    const check = event.type === 'run_succeeded' ? schema.check : null;
    const checked = check === null ? {} : check.ok ? { structuredOutput: check.value } : { outputSchemaError: check.error };
    const line = totals === undefined ? event : { ...event, ...totals, ...checked };
    if (!options.json) printer.handle(event, totals);
    // The same JSON, with the controls JSON leaves raw (C1, bidi) escaped: the reader may be a terminal.
    else if (!outputs.stdoutClosed) process.stdout.write(`${terminalJson(line)}\n`);
  };

  let sessions: OpenedSessionStore | null = null;
  try {
    sessions = await openSessionStore(databaseUrl);
    const { runTurn, openRunner, endSession } = await runnerModule;
    const models = new Map<string, BudgetModel>();
    const settings = {
      ...turnRunnerSettings(
        config,
        headlessGateway(model.gateway, headless, (name) => models.get(name) ?? UNPRICED),
        telemetry,
      ),
      store: sessions.store,
      ...(headless.outputSchema === null ? {} : { responseFormat: headless.outputSchema.format }),
    };
    const runner = await openRunner(settings);
    // The model's price with config.json's overrides, as the turn resolves it (a bad setting fails the turn itself).
    const priceOf = (resolving: typeof runner): Promise<BudgetModel | undefined> =>
      resolving.compaction().then(
        (resolved) => ({ pricing: resolved.modelEntry.pricing, maxOutputTokens: resolved.modelEntry.maxOutputTokens }),
        () => undefined,
      );
    const priced = await priceOf(runner);
    if (priced !== undefined) {
      tally.setPricing(priced.pricing);
      models.set(config.model, priced);
    }
    if (headless.fallbackModel !== null) {
      const fallback = await priceOf(await openRunner({ ...settings, model: headless.fallbackModel }));
      if (fallback !== undefined) {
        tally.setFallbackPricing(fallback.pricing);
        models.set(headless.fallbackModel, fallback);
      }
    }
    const unpriced = headless.maxBudgetUsd === null ? [] : unpricedModels(config.model, headless.fallbackModel, models);
    if (unpriced.length > 0) {
      process.stderr.write(
        `glassbox: --max-budget-usd needs a price for ${unpriced.join(' and ')}, and the model catalog has none; ` +
          'set one under "models" in config.json (see README, "Model catalog and prices") or drop the budget\n',
      );
      return EXIT.usage;
    }
    const turn = (turnPrompt: string, resume: string | null) =>
      runTurn(runner, {
        prompt: turnPrompt,
        resume,
        runId: randomUUID(),
        signal: controller.signal,
        approvals,
        onEvent,
        gitSnapshot,
        ...(options.plan ? { mode: 'plan' as const } : {}),
      });
    // Node's fetch, loaded lazily on the first request otherwise (unless loaded while `git status` ran).
    if (!config.demo && started?.gitStarted === undefined) loadFetch();
    const format = headless.outputSchema?.format;
    let result = await turn(format === undefined ? prompt : `${prompt}\n\n${outputSchemaInstruction(format)}`, options.resume ?? null);
    let failedCheck = failedSchemaCheck(result.terminal, schema.check);
    if (failedCheck !== null && result.persistError === null) {
      // One more turn in the same session, telling the model what was wrong.
      process.stderr.write(
        `glassbox: the answer does not match --output-schema; asking the model once more:\n${visibleText(failedCheck)}\n`,
      );
      schema.check = null;
      result = await turn(schemaRetryPrompt(failedCheck), result.sessionId);
      failedCheck = failedSchemaCheck(result.terminal, schema.check);
    }
    if (result.persistError !== null) {
      process.stderr.write(`glassbox: warning: the session file could not be finalized: ${result.persistError}\n`);
    }
    // SessionEnd hooks: recorded in the session; with --json not printed, so the result stays the last line.
    await endSession({
      runner,
      sessionId: result.sessionId,
      reason: 'other',
      signal: controller.signal,
      ...(options.json ? {} : { onEvent }),
    }).catch((error: Error) => {
      process.stderr.write(`glassbox: warning: the SessionEnd hooks could not be run: ${visibleText(error.message)}\n`);
    });
    if (options.json && result.terminal.type === 'run_failed') {
      // Scripts read the events on stdout; a person still gets the one-line reason on stderr.
      process.stderr.write(`glassbox: run failed [${result.terminal.error.code}]: ${visibleText(result.terminal.error.message)}\n`);
    }
    stopWatchingStdout();
    if (failedCheck !== null) {
      process.stderr.write(`glassbox: the answer does not match --output-schema, also after a retry:\n${visibleText(failedCheck)}\n`);
    }
    if (!options.json && result.terminal.type === 'run_succeeded' && failedCheck === null && !outputs.stdoutClosed) {
      // Piped, the answer is passed on byte for byte; on a terminal its control characters are
      // shown rather than obeyed (an answer is text a prompt injection can choose). A structured
      // answer is printed as the JSON it parsed to, so a code fence around it does not reach `jq`.
      const text =
        schema.check?.ok === true
          ? JSON.stringify(schema.check.value)
          : options.plan
            ? planAnswer(plan.current(), result.terminal.answer)
            : result.terminal.answer;
      const answer = process.stdout.isTTY ? visibleText(text) : text;
      process.stdout.write(answer.endsWith('\n') ? answer : `${answer}\n`);
    }
    await outputs.flushStdout();
    if (outputs.stdoutClosed) {
      // Without --json nothing reaches stdout before the answer, so the run was not cancelled.
      if (!cancelledByClosedStdout) {
        process.stderr.write(
          `glassbox: stdout was closed before all output was written; the session has it: glassbox sessions show ${result.sessionId}\n`,
        );
      }
      return EXIT.brokenPipe;
    }
    // A run cancelled by SIGTERM exits 143, the conventional code for it; Ctrl-C gives 130.
    if (result.terminal.type === 'run_cancelled' && terminatedBy === 'SIGTERM') return EXIT.terminated;
    if (failedCheck !== null) return EXIT.outputSchemaMismatch;
    return exitCodeFor(result.terminal);
  } finally {
    stopWatchingStdout();
    process.off('SIGINT', onSigint);
    process.off('SIGTERM', onSigterm);
    detachApprover();
    await model.close();
    await sessions?.close();
  }
}
