// `glassbox` with no command, `glassbox chat [prompt]` and `glassbox --resume <id|last>`: the
// interactive session. The flags are resolved here as for `exec`; the session itself (ink and
// React) is imported only now, so other commands never load it. Without a terminal there is
// nobody to drive a screen: a prompt then runs once as `exec` would, and says so.

import { Writable } from 'node:stream';
import { SANDBOX_MODES } from '../workspace/index.js';
import type { ExecCliOptions } from './exec-command.js';
import { openModel } from './open-model.js';
import { configKeyWarnings } from './config-key-warnings.js';
import { sandboxNotice, sandboxState } from './sandbox-notice.js';
import { APPROVAL_POLICIES, resolveTurnConfig, turnRunnerSettings } from './run-config.js';
import { envValue } from './cli-env.js';
import { EXIT } from './usage-error.js';
import type { FirstFrame } from '../tui/index.js';

export type ChatCliOptions = Omit<ExecCliOptions, 'json' | 'demoIntro'>;

export async function chatCommand(prompt: string | null, options: ChatCliOptions, firstFrame: FirstFrame | null = null): Promise<number> {
  const text = prompt?.trim() ? prompt : null;
  if (!process.stdin.isTTY || !process.stdout.isTTY) return withoutTerminal(text, options);

  const config = resolveTurnConfig(options);
  // Read once and out of the environment before the first child starts, as exec does.
  const { forgetDatabaseUrlVariable, openSessionStore, resolveDatabaseUrl } = await import('./session-store-option.js');
  const databaseUrl = resolveDatabaseUrl(options.databaseUrl, config.home);
  forgetDatabaseUrlVariable();
  // A bad trace endpoint is a usage error before the screen opens; reads the environment only.
  const { resolveTelemetrySettings } = await import('../telemetry/index.js');
  const telemetry = resolveTelemetrySettings({ otlpEndpoint: options.otlpEndpoint, traceContent: options.traceContent });
  // The demo notice belongs on the session's screen, not above it where the first frame erases it.
  const notices: string[] = [];
  const collect = new Writable({
    write(chunk: Buffer, _encoding, done) {
      notices.push(
        ...chunk
          .toString()
          .split('\n')
          .filter((line) => line.trim() !== '')
          .map((line) => line.replace(/^glassbox: /, '')),
      );
      done();
    },
  });
  const configWarnings = configKeyWarnings(config.home, config.root);
  const model = await openModel(config, { stderr: collect });
  notices.push(...(await configWarnings).map((warning) => `warning: ${warning}`));
  const sandbox = await sandboxState(config.sandbox);
  const notice = sandboxNotice(sandbox);
  if (notice !== null) notices.push(notice);
  let sessions: Awaited<ReturnType<typeof openSessionStore>> | null = null;
  try {
    sessions = await openSessionStore(databaseUrl);
    const [{ runInteractive }, { glassboxVersion }] = await Promise.all([import('../tui/index.js'), import('../runner/index.js')]);
    return await runInteractive({
      runner: { ...turnRunnerSettings(config, model.gateway, telemetry), store: sessions.store },
      sandboxModes: SANDBOX_MODES,
      approvalPolicies: APPROVAL_POLICIES,
      glassboxVersion: glassboxVersion(),
      notices,
      sandboxUnavailable: sandbox !== null && !sandbox.available ? sandbox.reason : null,
      prompt: text,
      resume: options.resume ?? null,
      color: envValue('NO_COLOR') === undefined,
      planFirst: options.plan === true,
      firstFrame,
    });
  } finally {
    await sessions?.close();
    await model.close();
  }
}

async function withoutTerminal(prompt: string | null, options: ChatCliOptions): Promise<number> {
  if (prompt === null) {
    const resume = options.resume ? ` --resume ${options.resume}` : '';
    process.stderr.write(
      `glassbox: the interactive session needs a terminal (stdin and stdout must both be a TTY).\n` +
        `glassbox: to run one prompt without one: glassbox exec${resume} "…"   (glassbox --help lists every command)\n`,
    );
    return EXIT.usage;
  }
  process.stderr.write('glassbox: not a terminal (stdin or stdout is not a TTY): running the prompt once, as `glassbox exec` does.\n');
  const { execCommand } = await import('./exec-command.js');
  return execCommand(prompt, options);
}
