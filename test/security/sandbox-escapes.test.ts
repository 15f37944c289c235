// Real commands under bubblewrap through the shell tool, each trying to get out: writes outside the
// root (absolute, `..`, a symlink in the root, /proc/self/root, /proc/self/cwd, /proc/1/root),
// the network, secret files (directly, through links, descriptors and copies), other processes'
// environments, remounts and new namespaces, `.git/hooks`, signals to processes outside, and
// background processes that try to outlive the call. Skipped when bubblewrap cannot run here.

import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { constants, existsSync, readFileSync, readdirSync } from 'node:fs';
import { access, mkdir, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { ExecutionPolicy } from '../../src/workspace/index.js';
import { detectSandbox } from '../../src/sandbox/index.js';
import { createShellTool } from '../../src/tools/index.js';
import { allowEverythingGate, createRuntime, makeFixture, snapshotChanges, snapshotTree, type Fixture } from './security-harness.js';

const sandbox = await detectSandbox();
const skip = sandbox.available ? false : `bubblewrap is unavailable here, so there is no sandbox to attack: ${sandbox.reason}`;

const API_KEY = `sk-sandbox-${process.pid}-${Math.random().toString(36).slice(2)}`;
const DOTENV_SECRET = 'dotenv-secret-7f3a';
const NESTED_SECRET = 'nested-env-secret-91c2';
const SSH_SECRET = 'ssh-private-key-body-5d0e';
const SESSION_SECRET = 'glassbox-home-session-44b1';
const SECRETS = [API_KEY, DOTENV_SECRET, NESTED_SECRET, SSH_SECRET, SESSION_SECRET];

const WORKSPACE_WRITE: ExecutionPolicy = { mode: 'workspace-write', sandboxed: true, network: false, secretsApproved: false };

/** Under /var/tmp, which the sandbox once showed read-only and now replaces with a private one: writes outside must reach nothing either way. */
async function visibleParent(): Promise<string> {
  try {
    await access('/var/tmp', constants.W_OK);
    return '/var/tmp';
  } catch {
    return tmpdir();
  }
}

interface SandboxFixture extends Fixture {
  userHome: string;
  run(command: string, execution?: ExecutionPolicy): Promise<string>;
}

async function sandboxFixture(): Promise<SandboxFixture> {
  const fixture = await makeFixture(
    {
      'a.txt': 'a\n',
      '.env': `TOKEN=${DOTENV_SECRET}\n`,
      'config/.env.local': `NESTED=${NESTED_SECRET}\n`,
      '.git/HEAD': 'ref: refs/heads/main\n',
      '.git/config': '[core]\n',
      '.git/hooks/pre-commit.sample': '#!/bin/sh\n',
      'sessions-marker.txt': 'inside\n',
    },
    { 'secret.txt': 'OUTSIDE-ORIGINAL\n' },
    await visibleParent(),
  );
  const userHome = join(fixture.base, 'user-home');
  await mkdir(join(userHome, '.ssh'), { recursive: true });
  await writeFile(join(userHome, '.ssh', 'id_rsa'), `${SSH_SECRET}\n`);
  await mkdir(join(fixture.home, 'sessions'), { recursive: true });
  await writeFile(join(fixture.home, 'sessions', 'session.jsonl'), `{"secret":"${SESSION_SECRET}"}\n`);
  await symlink('../outside', join(fixture.root, 'out-link'));
  await symlink('.env', join(fixture.root, 'notes.txt'));
  const shell = createShellTool({
    glassboxHome: fixture.home,
    homeDir: userHome,
    env: { PATH: process.env.PATH, HOME: userHome, OPENAI_API_KEY: API_KEY, GLASSBOX_TOKEN: API_KEY },
    killGraceMs: 200,
  });
  const run = async (command: string, execution: ExecutionPolicy = WORKSPACE_WRITE): Promise<string> => {
    const tools = createRuntime({ root: fixture.root, tools: [shell], gate: allowEverythingGate(execution) });
    const outcome = await tools.call('shell', { command, timeout_ms: 15_000 });
    assert.match(outcome.output, /^exit_code: /, `the command ran: ${outcome.output.slice(0, 300)}`);
    assert.match(outcome.output, new RegExp(`sandbox: ${execution.mode}`), 'it ran in the sandbox');
    return outcome.output;
  };
  return { ...fixture, userHome, run };
}

function assertNoSecret(output: string, allowed: readonly string[] = []): void {
  for (const secret of SECRETS) if (!allowed.includes(secret)) assert.ok(!output.includes(secret), `leaked ${secret}:\n${output}`);
}

describe('sandbox escapes (bubblewrap)', { skip }, () => {
  let fixture: SandboxFixture;
  let outsideBefore: Map<string, string>;
  let homeBefore: Map<string, string>;
  let gitBefore: Map<string, string>;

  before(async () => {
    fixture = await sandboxFixture();
    outsideBefore = await snapshotTree(fixture.outside);
    homeBefore = await snapshotTree(fixture.home);
    gitBefore = await snapshotTree(join(fixture.root, '.git'));
  });

  after(async () => {
    // Every attack, whatever it tried, left the outside, the Glassbox home and .git as they were.
    try {
      assert.deepEqual(snapshotChanges(outsideBefore, await snapshotTree(fixture.outside)), []);
      assert.deepEqual(snapshotChanges(homeBefore, await snapshotTree(fixture.home)), []);
      assert.deepEqual(snapshotChanges(gitBefore, await snapshotTree(join(fixture.root, '.git'))), []);
    } finally {
      await fixture.cleanup();
    }
  });

  test('writes outside the root fail: absolute, .., a symlink in the root, /proc/self/root, /proc/self/cwd, /proc/1/root, the homes', async () => {
    const { outside, root, home, userHome } = fixture;
    const targets = [
      join(outside, 'abs.txt'),
      '../outside/dotdot.txt',
      'out-link/link.txt',
      `/proc/self/root${outside}/proc-root.txt`,
      '/proc/self/cwd/../outside/proc-cwd.txt',
      `/proc/1/root${outside}/proc-one.txt`,
      join(home, 'sessions', 'session.jsonl'),
      join(home, 'new.txt'),
      join(userHome, 'new.txt'),
      join(userHome, '.ssh', 'authorized_keys'),
    ];
    const command =
      targets.map((target) => `echo pwned > '${target}' && echo "WROTE ${target}"`).join('; ') +
      `; cp a.txt '${outside}/' && echo COPIED; mkdir '${outside}/dir' && echo MADE; ln -s x '${outside}/ln' && echo LINKED;` +
      ` mv a.txt '${outside}/moved.txt' && echo MOVED; echo ok > inside.txt && echo INSIDE-OK`;
    const output = await fixture.run(command);
    assert.doesNotMatch(output, /WROTE|COPIED|MADE|LINKED|MOVED/, output);
    // The control: the root itself is writable, so the refusals above are the sandbox's doing.
    assert.match(output, /INSIDE-OK/);
    assert.equal(readFileSync(join(root, 'inside.txt'), 'utf8'), 'ok\n');
    assert.ok(existsSync(join(root, 'a.txt')), 'a move out of the root left the file in place');
    assert.deepEqual(snapshotChanges(outsideBefore, await snapshotTree(outside)), []);
  });

  test('read-only mode: nothing in the root can be written either', async () => {
    const output = await fixture.run('echo x > ro.txt && echo WROTE; rm a.txt && echo REMOVED; echo done', {
      ...WORKSPACE_WRITE,
      mode: 'read-only',
    });
    assert.doesNotMatch(output, /WROTE|REMOVED/);
    assert.equal(existsSync(join(fixture.root, 'ro.txt')), false);
    assert.ok(existsSync(join(fixture.root, 'a.txt')));
  });

  test('network off: TCP and UDP to a server on the host, and /dev/tcp, reach nothing; with network on they do', async () => {
    const connections: Socket[] = [];
    const server: Server = createServer((socket) => {
      connections.push(socket);
      socket.end();
    });
    const udp: UdpSocket = createSocket('udp4');
    const datagrams: string[] = [];
    let onDatagram: () => void = () => {};
    udp.on('message', (message) => {
      datagrams.push(message.toString());
      onDatagram();
    });
    try {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      await new Promise<void>((resolve) => udp.bind(0, '127.0.0.1', resolve));
      const tcpPort = (server.address() as { port: number }).port;
      const udpPort = udp.address().port;
      const command =
        `(exec 3<>/dev/tcp/127.0.0.1/${tcpPort} && echo TCP-CONNECTED); ` +
        `echo datagram > /dev/udp/127.0.0.1/${udpPort}; ` +
        `(command -v curl >/dev/null && curl -s --max-time 3 http://127.0.0.1:${tcpPort}/ && echo CURL-CONNECTED); echo done`;
      const offline = await fixture.run(command);
      assert.doesNotMatch(offline, /TCP-CONNECTED|CURL-CONNECTED/, offline);
      assert.equal(connections.length, 0, 'no TCP connection reached the host');

      // The control, which also proves the UDP check could fail: with network on both arrive.
      const arrived = new Promise<void>((resolve) => (onDatagram = resolve));
      const online = await fixture.run(command, { ...WORKSPACE_WRITE, network: true });
      assert.match(online, /TCP-CONNECTED/, online);
      assert.ok(connections.length >= 1);
      await arrived;
      assert.equal(datagrams.length, 1, 'only the networked run delivered a datagram');
    } finally {
      for (const socket of connections) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await new Promise<void>((resolve) => udp.close(() => resolve()));
    }
  });

  test('secret files stay masked: directly, nested, through a symlink, a descriptor, /proc/self/root, copies and searches', async () => {
    const attempts = [
      'cat .env',
      'cat config/.env.local',
      'cat notes.txt',
      'exec 3<.env; cat /proc/self/fd/3',
      `cat /proc/self/root${fixture.root}/.env`,
      `cat /proc/1/root${fixture.root}/config/.env.local`,
      'cp .env copied && cat copied',
      'grep -r . --include=".env*" .',
      'dd if=.env 2>/dev/null | base64',
      'tar cf - . 2>/dev/null | grep -a TOKEN',
      `cat '${fixture.userHome}/.ssh/id_rsa'`,
      `cat '${fixture.home}/sessions/session.jsonl'`,
      `ls -la '${fixture.home}'`,
    ];
    const output = await fixture.run(`${attempts.map((attempt) => `(${attempt})`).join('; ')}; echo done`);
    assert.match(output, /done/);
    assertNoSecret(output);
    // The control: once approved, the project's secret files are readable (still not the homes).
    const approved = await fixture.run('cat .env config/.env.local notes.txt', { ...WORKSPACE_WRITE, secretsApproved: true });
    assert.ok(approved.includes(DOTENV_SECRET) && approved.includes(NESTED_SECRET), approved);
  });

  test('environments: the child gets no key, and no other process (parents, pid 1, the host) is visible', async () => {
    // A host process holding a secret in its environment, outside the sandbox.
    const host: ChildProcess = spawn('sleep', ['60'], { env: { PATH: process.env.PATH, HOST_SECRET: API_KEY }, stdio: 'ignore' });
    try {
      const pid = host.pid as number;
      assert.ok(readFileSync(`/proc/${pid}/environ`, 'utf8').includes(API_KEY), 'the host process really holds the secret');
      const output = await fixture.run(
        `env; cat /proc/self/environ | tr '\\0' '\\n'; cat /proc/1/environ | tr '\\0' '\\n'; cat /proc/$PPID/environ | tr '\\0' '\\n'; ` +
          `for f in /proc/[0-9]*/environ; do tr '\\0' '\\n' < "$f"; done; cat /proc/${pid}/environ; cat /proc/${process.pid}/environ; ` +
          `kill -9 ${pid} && echo KILLED; echo processes: $(ls -d /proc/[0-9]* | wc -l)`,
      );
      assertNoSecret(output);
      assert.doesNotMatch(output, /OPENAI_API_KEY|GLASSBOX_TOKEN|HOST_SECRET|KILLED/, output);
      assert.match(output, /GLASSBOX_SANDBOX=1/);
      const count = Number(/processes: (\d+)/.exec(output)?.[1]);
      assert.ok(count > 0 && count < 20, `only the sandbox's own processes are visible (${count})`);
      assert.equal(host.exitCode, null, 'the host process is still alive');
      process.kill(pid, 0);
    } finally {
      host.kill('SIGKILL');
    }
  });

  test('/proc/self/mountinfo reveals the layout but grants nothing; remounts and new namespaces fail', async () => {
    const output = await fixture.run(
      `grep -c '${fixture.root}' /proc/self/mountinfo; ` +
        `mount -o remount,rw / 2>&1 || echo REMOUNT-REFUSED; mount -o remount,rw '${fixture.root}/.git' 2>&1 || echo GIT-REMOUNT-REFUSED; ` +
        `umount .env 2>&1 || echo UMOUNT-REFUSED; mount --bind '${fixture.outside}' out-link 2>&1 || echo BIND-REFUSED; ` +
        `unshare -rm sh -c 'umount -l .env; cat .env; mount -o remount,rw /; echo pwned > ${fixture.outside}/userns.txt' 2>&1 || echo UNSHARE-REFUSED; ` +
        `unshare -n true 2>&1 || echo NETNS-REFUSED; cat .env; echo pwned > '${fixture.outside}/after.txt' 2>&1 || echo STILL-READ-ONLY`,
    );
    assert.match(output, /^exit_code: \d+[^\n]*\n[1-9]\d*\n/, `mountinfo shows the project root:\n${output}`);
    for (const refused of [
      'REMOUNT-REFUSED',
      'GIT-REMOUNT-REFUSED',
      'UMOUNT-REFUSED',
      'BIND-REFUSED',
      'UNSHARE-REFUSED',
      'NETNS-REFUSED',
      'STILL-READ-ONLY',
    ]) {
      assert.match(output, new RegExp(refused), `${refused} missing:\n${output}`);
    }
    assertNoSecret(output);
  });

  test('workspace-write: .git (hooks, config) cannot be written, moved or replaced', async () => {
    const output = await fixture.run(
      'echo "#!/bin/sh" > .git/hooks/pre-commit && echo WROTE-HOOK; ln -s /bin/sh .git/hooks/post-checkout && echo LINKED-HOOK; ' +
        'chmod +x .git/hooks/pre-commit.sample && echo CHMOD; rm -f .git/hooks/pre-commit.sample && echo REMOVED; ' +
        'printf "[core]\\n\\thooksPath = /tmp\\n" >> .git/config && echo CONFIG; mv .git .git-old && echo MOVED; ' +
        'rm -rf .git && echo DELETED; echo done',
    );
    assert.doesNotMatch(output, /WROTE-HOOK|LINKED-HOOK|CHMOD|REMOVED|CONFIG|MOVED|DELETED/, output);
    assert.deepEqual(snapshotChanges(gitBefore, await snapshotTree(join(fixture.root, '.git'))), []);
  });

  test('background processes (setsid, nohup, &, disown) do not outlive the call', async () => {
    const marker = `${100_000 + Math.floor(Math.random() * 800_000)}.25`;
    const output = await fixture.run(
      `setsid sleep ${marker} & nohup sleep ${marker} >/dev/null 2>&1 & (sleep ${marker} &); setsid -f sleep ${marker}; disown -a; echo started`,
    );
    assert.match(output, /started/);
    const survivors = processesWithArgument(marker);
    for (const pid of survivors) process.kill(pid, 'SIGKILL');
    assert.deepEqual(survivors, [], 'no sleep started by the command is still running');
  });
});

/** Live (non-zombie) host processes whose command line contains `argument`. */
function processesWithArgument(argument: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const args = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0');
      const state = readFileSync(`/proc/${name}/stat`, 'utf8').split(') ')[1]?.[0];
      if (args.includes(argument) && state !== 'Z' && state !== 'X') found.push(Number(name));
    } catch {
      // Gone while we looked.
    }
  }
  return found;
}
