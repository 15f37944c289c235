// The sandbox hides the host (issue 22, items 6 and 11). Stand-in host services listen on Unix
// sockets where real ones do (the session bus and systemd's private socket in $XDG_RUNTIME_DIR,
// the gpg-agent under ~/.gnupg, Docker Desktop's socket under ~/.docker, a daemon under /run, an
// abstract socket) and, like the real ones, act on what a client sends: each "runs a command" (a
// marker file on the host) when told to. A sandboxed command tries them all; no connection may
// arrive and no marker appear. The same probe run without the sandbox reaches every one, which
// proves it could. Then a fake home full of credentials: none readable from the sandbox, while its
// toolchains still run. Skipped when bubblewrap cannot run here.

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, realpathSync, writeFileSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { ExecutionPolicy } from '../../src/workspace/index.js';
import { detectSandbox } from '../../src/sandbox/index.js';
import { createShellTool } from '../../src/tools/index.js';
import { allowEverythingGate, createRuntime } from './security-harness.js';

const sandbox = await detectSandbox();
const skip = sandbox.available ? false : `bubblewrap is unavailable here: ${sandbox.reason}`;

const READ_ONLY: ExecutionPolicy = { mode: 'read-only', sandboxed: true, network: false, secretsApproved: true };
const UNSANDBOXED: ExecutionPolicy = { mode: 'danger-full-access', sandboxed: false, network: true, secretsApproved: true };

/** Under /var/tmp where it can be: unlike /tmp, the sandbox used to show it. */
async function visibleBase(): Promise<string> {
  for (const parent of ['/var/tmp', tmpdir()]) {
    try {
      return realpathSync(await mkdtemp(join(parent, 'glassbox-hostview-')));
    } catch {
      // not writable here
    }
  }
  throw new Error('no writable temporary directory');
}

/** A directory under the real /run (root only), removed after; null where it cannot be made. */
async function runDirectory(): Promise<string | null> {
  const path = `/run/glassbox-test-${randomBytes(6).toString('hex')}`;
  try {
    await mkdir(path, { mode: 0o755 });
    return path;
  } catch {
    return null;
  }
}

interface StandIn {
  name: string;
  /** A socket path, or `\0name` for an abstract socket. */
  address: string;
  server: Server;
  connections: number;
  /** The file this service writes when a client tells it to run something. */
  marker: string;
}

async function standIn(name: string, address: string, markers: string): Promise<StandIn> {
  if (!address.startsWith('\0')) await mkdir(dirname(address), { recursive: true, mode: 0o700 });
  const service: StandIn = { name, address, connections: 0, marker: join(markers, `ran-${name}`), server: createServer() };
  service.server.on('connection', (socket) => {
    service.connections += 1;
    socket.on('data', (data) => {
      if (data.toString().includes('RUN')) writeFileSync(service.marker, 'the host ran a command for a client\n');
    });
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve, reject) => {
    service.server.once('error', reject);
    service.server.listen(address, () => resolve());
  });
  return service;
}

/** Connects to every target, asks it to run something, prints CONNECTED or FAILED per target. */
const PROBE = `
const net = require('node:net');
const targets = JSON.parse(process.argv[2]);
let left = targets.length;
for (const [name, address] of targets) {
  let connected = false;
  const socket = net.connect(address);
  socket.on('connect', () => { connected = true; console.log('CONNECTED ' + name); socket.end('RUN\\n'); });
  socket.on('error', (error) => console.log('FAILED ' + name + ' ' + error.code));
  socket.on('close', () => { if (--left === 0) process.exit(0); });
}
`;

const SECRET = randomBytes(6).toString('hex');
/** The credential stores of issue 22 item 11, each with its own secret. */
const CREDENTIALS: Record<string, string> = {
  '.pgpass': `db:5432:*:me:pg-${SECRET}`,
  '.my.cnf': `[client]\npassword=mysql-${SECRET}`,
  '.netrc': `machine example.com password netrc-${SECRET}`,
  '.git-credentials': `https://me:gitcred-${SECRET}@example.com`,
  '.ssh/id_ed25519': `ssh-${SECRET}`,
  '.aws/credentials': `aws_secret_access_key=aws-${SECRET}`,
  '.config/gcloud/application_default_credentials.json': `{"secret":"gcloud-${SECRET}"}`,
  '.azure/msal_token_cache.json': `{"secret":"azure-${SECRET}"}`,
  '.kube/config': `token: kube-${SECRET}`,
  '.docker/config.json': `{"auths":{"x":{"auth":"docker-${SECRET}"}}}`,
  '.codex/auth.json': `{"OPENAI_API_KEY":"codex-${SECRET}"}`,
  '.claude/.credentials.json': `{"accessToken":"claude-${SECRET}"}`,
  '.config/github-copilot/hosts.json': `{"oauth_token":"copilot-${SECRET}"}`,
  '.bash_history': `export API_TOKEN=history-${SECRET}`,
  '.cargo/credentials.toml': `[registry]\ntoken = "cargo-${SECRET}"`,
};

describe('the sandbox hides the host', { skip }, () => {
  let base: string;
  let root: string;
  let home: string;
  let runDir: string | null;
  let services: StandIn[] = [];
  let run: (command: string, execution: ExecutionPolicy) => Promise<string>;

  before(async () => {
    base = await visibleBase();
    // Readable by every user, as a real /var/tmp is, so nothing is hidden by file modes alone.
    await chmod(base, 0o755);
    root = join(base, 'project');
    home = join(base, 'home');
    await mkdir(root);
    await mkdir(home);
    runDir = await runDirectory();
    const runtimeDir = join(runDir ?? join(base, 'run'), 'user', String(process.getuid?.() ?? 0));
    const markers = join(base, 'markers');
    await mkdir(markers);
    const targets: [string, string][] = [
      ['session-bus', join(runtimeDir, 'bus')],
      ['systemd-private', join(runtimeDir, 'systemd', 'private')],
      ['gpg-agent', join(home, '.gnupg', 'S.gpg-agent')],
      ['docker-desktop', join(home, '.docker', 'run', 'docker.sock')],
      ['abstract', `\0glassbox-test-${randomBytes(6).toString('hex')}`],
    ];
    if (runDir !== null) targets.push(['run-daemon', join(runDir, 'docker.sock')]);
    services = await Promise.all(targets.map(([name, address]) => standIn(name, address, markers)));

    for (const [path, text] of Object.entries(CREDENTIALS)) {
      await mkdir(dirname(join(home, path)), { recursive: true });
      await writeFile(join(home, path), `${text}\n`);
    }
    await mkdir(join(base, 'other-project'));
    await writeFile(join(base, 'other-project', '.env'), `OTHER_PROJECT_KEY=other-${SECRET}\n`);
    // Toolchains the sandbox must still show: a tool on PATH in ~/.cargo/bin, npm's cache, git's config.
    await mkdir(join(home, '.cargo', 'bin'), { recursive: true });
    await writeFile(join(home, '.cargo', 'bin', 'toolchain-probe'), '#!/bin/sh\necho TOOLCHAIN-RUNS\n', { mode: 0o755 });
    await mkdir(join(home, '.npm'));
    await writeFile(join(home, '.npm', 'cache-marker'), 'NPM-CACHE-READABLE\n');
    await writeFile(join(home, '.gitconfig'), '[user]\n\tname = Gitconfig Readable\n');
    await writeFile(join(root, 'probe.cjs'), PROBE);

    const shell = createShellTool({
      glassboxHome: join(home, '.glassbox'),
      homeDir: home,
      env: { PATH: `${join(home, '.cargo', 'bin')}:${process.env.PATH}`, HOME: home, XDG_RUNTIME_DIR: runtimeDir },
      killGraceMs: 200,
    });
    run = async (command, execution) => {
      const tools = createRuntime({ root, tools: [shell], gate: allowEverythingGate(execution) });
      const outcome = await tools.call('shell', { command, timeout_ms: 30_000 });
      assert.match(outcome.output, /^exit_code: /, outcome.output.slice(0, 400));
      return outcome.output;
    };
  });

  after(async () => {
    await Promise.all(services.map((service) => new Promise<void>((resolve) => service.server.close(() => resolve()))));
    if (base !== undefined) await rm(base, { recursive: true, force: true });
    if (runDir) await rm(runDir, { recursive: true, force: true });
  });

  const probe = (): string => `node probe.cjs '${JSON.stringify(services.map((service) => [service.name, service.address]))}'`;

  const reset = async (): Promise<void> => {
    for (const service of services) {
      service.connections = 0;
      await rm(service.marker, { force: true });
    }
  };

  test('no host Unix socket is reachable: the runtime directory, ~/.gnupg, ~/.docker, /run, abstract ones', async () => {
    await reset();
    const output = await run(probe(), READ_ONLY);
    assert.match(output, /sandbox: read-only \(network off\)/);
    for (const service of services) {
      assert.match(output, new RegExp(`FAILED ${service.name} `), `${service.name} was tried and refused:\n${output}`);
      assert.equal(service.connections, 0, `no connection reached ${service.name}`);
      assert.equal(existsSync(service.marker), false, `${service.name} ran nothing`);
    }
  });

  test('the control: without the sandbox the same probe reaches every service, which then runs a command', async () => {
    await reset();
    const output = await run(probe(), UNSANDBOXED);
    assert.match(output, /sandbox: none/);
    for (const service of services) {
      assert.match(output, new RegExp(`CONNECTED ${service.name}\\n`), output);
      assert.ok(service.connections >= 1, service.name);
      // The service read the request before the probe saw its connection close.
      assert.equal(existsSync(service.marker), true, `${service.name} ran the command`);
    }
  });

  test('network on: socket files stay out of reach; abstract sockets are reachable (a documented residual)', async () => {
    await reset();
    const output = await run(probe(), { ...READ_ONLY, network: true });
    for (const service of services) {
      if (service.name === 'abstract') {
        assert.match(output, /CONNECTED abstract/, 'with the host network namespace, abstract sockets are shared');
      } else {
        assert.match(output, new RegExp(`FAILED ${service.name} `), output);
        assert.equal(service.connections, 0, service.name);
      }
    }
  });

  test('no credential store of the home directory, nor another project, is readable; the toolchains are', async () => {
    const command = [
      ...Object.keys(CREDENTIALS).map((path) => `cat "$HOME/${path}"`),
      `cat '${join(base, 'other-project', '.env')}'`,
      `grep -rs '${SECRET}' "$HOME" '${base}' /run /var /tmp`,
      `ls -A "$HOME"`,
      'toolchain-probe',
      'cat "$HOME/.npm/cache-marker"',
      'git config --global user.name',
      'node -e "console.log(\'NODE-RUNS\')"',
      'npm --version >/dev/null && echo NPM-RUNS',
      'echo done',
    ].join('; ');
    const output = await run(command, READ_ONLY);
    assert.match(output, /done/);
    // Every planted secret carries SECRET, so one check covers them all.
    assert.ok(!output.includes(SECRET), `a credential leaked:\n${output}`);
    for (const visible of ['TOOLCHAIN-RUNS', 'NPM-CACHE-READABLE', 'Gitconfig Readable', 'NODE-RUNS', 'NPM-RUNS']) {
      assert.match(output, new RegExp(visible), `${visible}:\n${output}`);
    }
    // The control: on the host every one of them is readable.
    const host = await run(
      `cat ${Object.keys(CREDENTIALS)
        .map((path) => `"$HOME/${path}"`)
        .join(' ')}`,
      UNSANDBOXED,
    );
    for (const text of Object.values(CREDENTIALS)) assert.ok(host.includes(text.split('\n').at(-1)!), text);
  });
});
