// A stand-in for a Glassbox process, started by test/security/sandbox-attack.test.ts where the
// attack needs a process of its own: one that inherited a file descriptor from whatever started
// it, or one that runs as an unprivileged user while the tests run as root. It runs the commands
// given (one after another, as a session would) through the real runCommand and prints what each
// returned as one JSON line on stdout.

import { detectSandbox, runCommand, type SandboxedMode } from '../../src/sandbox/index.js';

interface ProbeRequest {
  root: string;
  home: string;
  /** null: run on the host, without the sandbox (the precondition). */
  mode: SandboxedMode | null;
  commands: string[];
}

const request = JSON.parse(process.argv[2] ?? '{}') as ProbeRequest;
const availability = await detectSandbox();
const results: { output: string; exitCode: number | null; unverified: boolean; problems: string[] }[] = [];
for (const command of request.commands) {
  const result = await runCommand({
    command,
    root: request.root,
    workdir: request.root,
    env: { PATH: process.env.PATH, HOME: request.home },
    sandbox:
      request.mode === null
        ? null
        : {
            bwrapPath: availability.path ?? 'bwrap',
            mode: request.mode,
            network: false,
            secretsApproved: false,
            homeDir: request.home,
            glassboxHome: `${request.home}/.glassbox`,
          },
    timeoutMs: 20_000,
    killGraceMs: 300,
  });
  results.push({
    output: result.output.text,
    exitCode: result.exitCode,
    unverified: result.unverifiedTree !== null,
    problems: result.gitMetadataProblems,
  });
}
process.stdout.write(`${JSON.stringify({ available: availability.available, results })}\n`);
