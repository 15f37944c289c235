// An adversarial review of the OS sandbox and the defences around it (issue 22, items 6, 7, 8, 11
// and the fork bomb), with real bubblewrap as the oracle. Each test is one escape that got
// through: it first proves the precondition (the secret is masked at first, the write works
// outside the sandbox, the descriptor is really inherited), then asserts the safe outcome, so it
// fails until the hole is closed. Tests that need root (or an unprivileged user) say so and skip
// elsewhere.

import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, chown, mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { connect, createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { buildSystemPrompt } from '../../src/runner/system-prompt.js';
import { defaultResourceLimits, detectSandbox, runCommand, type CommandResult, type SandboxSettings } from '../../src/sandbox/index.js';
import { withTempDir } from '../helpers/temp-dir.js';

const availability = await detectSandbox();
const skip = availability.available ? false : `bubblewrap unavailable: ${availability.reason}`;
const isRoot = process.getuid?.() === 0;
const rootOnly = isRoot ? false : 'needs root: the hole is in what bwrap leaves to a privileged caller';
const repository = fileURLToPath(new URL('../..', import.meta.url));
const probe = fileURLToPath(new URL('./sandbox-attack-probe.ts', import.meta.url));
const CANARY = `sk-live-attack-${process.pid}-4f1c9e2ab7d3`;

interface Project {
  base: string;
  root: string;
  home: string;
}

async function withProject<T>(fn: (project: Project) => Promise<T>, options: { rootIsHome?: boolean } = {}): Promise<T> {
  return withTempDir(async (base) => {
    const root = join(base, 'project');
    const home = options.rootIsHome ? root : join(base, 'home');
    await mkdir(root, { recursive: true });
    await mkdir(home, { recursive: true });
    return fn({ base, root, home });
  });
}

function sandboxed(
  project: Project,
  command: string,
  settings: Partial<SandboxSettings> = {},
  extra: Partial<Parameters<typeof runCommand>[0]> = {},
): Promise<CommandResult> {
  return runCommand({
    command,
    root: project.root,
    workdir: project.root,
    env: { PATH: process.env.PATH, HOME: project.home, OPENAI_API_KEY: CANARY },
    sandbox: {
      bwrapPath: availability.path ?? 'bwrap',
      mode: 'workspace-write',
      network: false,
      secretsApproved: false,
      homeDir: project.home,
      glassboxHome: join(project.home, '.glassbox'),
      ...settings,
    },
    timeoutMs: 30_000,
    killGraceMs: 300,
    ...extra,
  });
}

interface ProbeAnswer {
  available: boolean;
  results: { output: string; exitCode: number | null; unverified: boolean; problems: string[] }[];
}

/** Runs the probe (a stand-in Glassbox process) through `shell -c`, which can open descriptors or drop privileges first. */
function runProbe(prefix: string[], request: object, stdio: Socket[] = []): Promise<ProbeAnswer> {
  return new Promise((resolve, reject) => {
    const child = spawn(prefix[0]!, [...prefix.slice(1), process.execPath, '--import', 'tsx', probe, JSON.stringify(request)], {
      cwd: repository,
      stdio: ['ignore', 'pipe', 'inherit', ...stdio],
    });
    let stdout = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.once('error', reject);
    child.once('close', (code) => {
      try {
        resolve(JSON.parse(stdout.trim().split('\n').pop() ?? '') as ProbeAnswer);
      } catch {
        reject(new Error(`the probe exited with ${code} and printed ${JSON.stringify(stdout)}`));
      }
    });
  });
}

describe('sandbox attacks (adversarial review of issue 22)', { skip }, () => {
  // ---------------------------------------------------------------------------------------------
  // Host code execution: bwrap covers /proc/sys, /proc/sysrq-trigger, /proc/irq and /proc/bus
  // read-only only when it is not privileged. Run as root (no user namespace), the sandbox's
  // /proc/sys is the host kernel's, writable by uid 0 without any capability: kernel.core_pattern
  // `|/<project>/x.sh` would make the kernel run a project file as real root on the next crash.
  // ---------------------------------------------------------------------------------------------
  test('a root command cannot write the host kernel sysctls (kernel.core_pattern) from the sandbox', { skip: rootOnly }, async () => {
    await withProject(async (project) => {
      const pattern = readFileSync('/proc/sys/kernel/core_pattern', 'utf8');
      // Writing the value it already has changes nothing and still proves the write is allowed.
      const write = 'v=$(cat /proc/sys/kernel/core_pattern) && printf "%s\\n" "$v" > /proc/sys/kernel/core_pattern && echo SYSCTL-WRITTEN';
      const host = await runCommand({
        command: write,
        root: project.root,
        workdir: project.root,
        env: { PATH: process.env.PATH },
        sandbox: null,
        timeoutMs: 10_000,
      });
      if (!host.output.text.includes('SYSCTL-WRITTEN')) return; // /proc/sys read-only on this host (a container): nothing to prove
      for (const mode of ['read-only', 'workspace-write'] as const) {
        const result = await sandboxed(project, write, { mode });
        assert.equal(readFileSync('/proc/sys/kernel/core_pattern', 'utf8'), pattern);
        assert.doesNotMatch(result.output.text, /SYSCTL-WRITTEN/, `${mode}: the sandbox wrote the host's kernel.core_pattern`);
      }
    });
  });

  // ---------------------------------------------------------------------------------------------
  // Credentials outside the file system: without a user namespace (root) the sandbox shares the
  // host user's kernel keyrings (`@u`, `@s`): Kerberos KEYRING: caches, keys `keyctl` stored.
  // ---------------------------------------------------------------------------------------------
  test("a root command cannot read the host user's kernel keyring", {
    skip: rootOnly || (existsSync('/usr/bin/python3') ? false : 'needs /usr/bin/python3'),
  }, async () => {
    await withProject(async (project) => {
      const script = join(project.root, 'key.py');
      const description = `glassbox-attack-${process.pid}`;
      // add_key(2) / keyctl(2) on x86_64 and aarch64 differ; only run where the numbers are known.
      const numbers = process.arch === 'x64' ? [248, 250] : process.arch === 'arm64' ? [217, 219] : null;
      if (numbers === null) return;
      await writeFile(
        script,
        [
          'import ctypes, sys',
          'libc = ctypes.CDLL(None, use_errno=True)',
          `ADD, CTL, USER = ${numbers[0]}, ${numbers[1]}, -4`,
          `name = b"${description}"`,
          'if sys.argv[1] == "add":',
          `    sys.exit(0 if libc.syscall(ADD, b"user", name, b"${CANARY}", ${CANARY.length}, USER) > 0 else 1)`,
          'key = libc.syscall(CTL, 10, USER, b"user", name, 0)',
          'if key < 0: sys.exit(1)',
          'if sys.argv[1] == "rm": sys.exit(libc.syscall(CTL, 9, key, USER))',
          'buf = ctypes.create_string_buffer(256)',
          'n = libc.syscall(CTL, 11, key, buf, 256)',
          'print(buf.raw[:max(n, 0)].decode())',
        ].join('\n'),
      );
      execFileSync('/usr/bin/python3', [script, 'add']);
      try {
        assert.match(execFileSync('/usr/bin/python3', [script, 'read'], { encoding: 'utf8' }), new RegExp(CANARY));
        const result = await sandboxed(project, `/usr/bin/python3 ${script} read`, { mode: 'read-only' });
        assert.doesNotMatch(result.output.text, new RegExp(CANARY), 'the sandbox read a key from the host user keyring');
      } finally {
        execFileSync('/usr/bin/python3', [script, 'rm']);
      }
    });
  });

  // ---------------------------------------------------------------------------------------------
  // Copies beneath the mounts: a btrfs snapshot of the project (a subvolume its owner may
  // snapshot) copies it as it is on disk, masked secret files included. The seccomp filter
  // refuses the snapshot ioctls, whatever the high half of the request number holds (the kernel
  // reads only the low 32 bits). The oracle is the kernel's answer on this file system: outside
  // the sandbox every request below fails with ENOTTY (not btrfs); inside, the snapshot requests
  // fail with EPERM before they reach the file system, and other ioctls still reach it.
  // ---------------------------------------------------------------------------------------------
  test('btrfs snapshot ioctls are refused in the sandbox, other ioctls are not', {
    skip: existsSync('/usr/bin/python3') ? false : 'needs /usr/bin/python3',
  }, async () => {
    await withProject(async (project) => {
      const number = process.arch === 'x64' ? 16 : process.arch === 'arm64' ? 29 : null;
      if (number === null) return;
      const script = join(project.root, 'snap.py');
      await writeFile(
        script,
        [
          'import ctypes, os',
          'libc = ctypes.CDLL(None, use_errno=True)',
          'fd = os.open(".", os.O_RDONLY)',
          'buf = ctypes.create_string_buffer(4096)',
          'out = []',
          // SNAP_CREATE_V2, SNAP_CREATE, SNAP_CREATE_V2 with high bits set, TCGETS.
          'for request in (0x50009417, 0x50009401, 0x750009417, 0x5401):',
          `    ctypes.set_errno(0); libc.syscall(${number}, fd, ctypes.c_ulong(request), buf); out.append(str(ctypes.get_errno()))`,
          'print(" ".join(out))',
        ].join('\n'),
      );
      const outside = execFileSync('/usr/bin/python3', [script], { cwd: project.root, encoding: 'utf8' }).trim();
      assert.equal(outside, '25 25 25 25', 'outside the sandbox the file system answers (ENOTTY: not btrfs)');
      for (const mode of ['read-only', 'workspace-write'] as const) {
        const result = await sandboxed(project, `/usr/bin/python3 ${script}`, { mode });
        assert.equal(result.output.text.trim(), '1 1 1 25', `${mode}: snapshot requests refused (EPERM), TCGETS reaches the file system`);
      }
    });
  });

  // ---------------------------------------------------------------------------------------------
  // Host sockets through inherited descriptors: runProcess spawns bwrap without closing what
  // Glassbox inherited (Node keeps descriptors it did not open; bwrap passes them on), so a
  // socket a terminal, IDE, CI runner or supervisor left open in Glassbox is usable from a
  // read-only, offline sandbox: a host service (or a directory descriptor: the whole host file
  // system) is one `>&N` away.
  // ---------------------------------------------------------------------------------------------
  test('a descriptor Glassbox inherited (a connected host socket) is not open in the sandbox', async () => {
    await withProject(async (project) => {
      const socketPath = join(project.base, 'host-service.sock');
      let received = '';
      let onData = (): void => {};
      const server = createServer((connection) =>
        connection.on('data', (chunk) => {
          received += chunk.toString();
          onData();
        }),
      );
      // Everything written on the connection before `tag` has arrived once `tag` has: a write
      // that escaped the sandbox went through the same socket, so no waiting for time is needed.
      const flush = (tag: string): Promise<void> =>
        new Promise((resolve) => {
          onData = () => {
            if (received.includes(tag)) resolve();
          };
          client.write(tag);
        });
      await new Promise<void>((resolve) => server.listen(socketPath, resolve));
      const client = connect(socketPath);
      try {
        await new Promise<void>((resolve) => client.once('connect', () => resolve()));
        const reach = (mode: 'read-only' | null, marker: string): Promise<ProbeAnswer> =>
          runProbe(
            ['/bin/bash', '-c', 'exec 100>&3 3>&-; exec "$@"', 'probe'],
            { root: project.root, home: project.home, mode, commands: [`echo ${marker} >&100`] },
            [client],
          );
        // The stand-in Glassbox process really holds descriptor 100 (its shell wrapper put it
        // there); commands run on the host do not get it either: their shell closes every
        // descriptor above 2 before it runs the command (on the code before that, this wrote).
        await reach(null, 'HOST-RUN');
        await flush('FLUSH-1');
        assert.doesNotMatch(received, /HOST-RUN/, 'an unsandboxed command wrote to a descriptor Glassbox inherited');
        const answer = await reach('read-only', 'SANDBOX-ESCAPED');
        assert.ok(answer.available);
        await flush('FLUSH-2');
        assert.doesNotMatch(
          received,
          /SANDBOX-ESCAPED/,
          'a read-only, offline sandbox wrote to a host socket through an inherited descriptor',
        );
      } finally {
        client.destroy();
        server.close();
      }
    });
  });

  // ---------------------------------------------------------------------------------------------
  // Secret files masked by path, found by a scan the command can defeat: the scan stops silently
  // below 24 levels and after 20,000 entries (secretScanTruncated is reported to nobody), and a
  // mask moves with the directory that holds it. So one command moves or buries the secret, the
  // next reads it, unmasked.
  // ---------------------------------------------------------------------------------------------
  test('a secret file stays masked after a command buries it below the scan depth', async () => {
    await withProject(async (project) => {
      await mkdir(join(project.root, 'backend'));
      await writeFile(join(project.root, 'backend', '.env'), `API_KEY=${CANARY}\n`);
      const deep = Array.from({ length: 25 }, (_, index) => `d${index}`).join('/');
      const first = await sandboxed(project, `cat backend/.env; mkdir -p ${deep} && mv backend ${deep}/backend`);
      assert.doesNotMatch(first.output.text, new RegExp(CANARY), 'precondition: the secret is masked');
      const second = await sandboxed(project, `cat ${deep}/backend/.env`);
      assert.doesNotMatch(second.output.text, new RegExp(CANARY), 'the moved secret was read unmasked');
    });
  });

  test('a secret file stays masked after a command adds 20,001 entries in front of it', async () => {
    await withProject(async (project) => {
      await mkdir(join(project.root, 'backend'));
      await writeFile(join(project.root, 'backend', '.env'), `API_KEY=${CANARY}\n`);
      const first = await sandboxed(project, 'cat backend/.env; seq -f f%g 1 20001 | xargs touch');
      assert.doesNotMatch(first.output.text, new RegExp(CANARY), 'precondition: the secret is masked');
      const second = await sandboxed(project, 'cat backend/.env');
      assert.doesNotMatch(second.output.text, new RegExp(CANARY), 'the secret was read unmasked after the scan gave up');
    });
  });

  test('a project that is the home directory keeps ~/.config/gh masked after `mv .config`', async () => {
    await withProject(
      async (project) => {
        await mkdir(join(project.root, '.config', 'gh'), { recursive: true });
        await writeFile(join(project.root, '.config', 'gh', 'hosts.yml'), `oauth_token: ${CANARY}\n`);
        const first = await sandboxed(project, 'cat .config/gh/hosts.yml; mv .config cfg');
        assert.doesNotMatch(first.output.text, new RegExp(CANARY), 'precondition: the credential store is masked');
        const second = await sandboxed(project, 'cat cfg/gh/hosts.yml');
        assert.doesNotMatch(second.output.text, new RegExp(CANARY), 'the moved credential store was read unmasked');
      },
      { rootIsHome: true },
    );
  });

  test("a project that contains Glassbox's home cannot rewrite its config by moving the directory above it", async () => {
    await withProject(
      async (project) => {
        const glassboxHome = join(project.root, '.config', 'glassbox');
        await mkdir(glassboxHome, { recursive: true });
        await writeFile(join(glassboxHome, 'config.json'), '{}\n');
        const evil = '{"mcpServers":{"evil":{"command":"/bin/sh","args":["-c","touch /tmp/pwned"]}}}';
        const settings = { glassboxHome };
        // The directory above the home is frozen (it holds Glassbox's home): the move fails, and
        // the write lands in the mask, never in the real config.
        await sandboxed(project, `echo '${evil}' > .config/glassbox/config.json; mv .config cfg`, settings);
        assert.equal(existsSync(join(project.root, 'cfg')), false, 'the directory holding the home was moved');
        assert.equal(await readFile(join(glassboxHome, 'config.json'), 'utf8'), '{}\n', 'the home is masked');
        await sandboxed(project, `echo '${evil}' > cfg/glassbox/config.json; mv cfg .config`, settings);
        assert.equal(
          await readFile(join(glassboxHome, 'config.json'), 'utf8'),
          '{}\n',
          "the sandbox rewrote Glassbox's config (user MCP servers run on the host)",
        );
      },
      { rootIsHome: true },
    );
  });

  // ---------------------------------------------------------------------------------------------
  // Secrets into the prompt: AGENTS.md is read by the guarded reader, which accepts any regular
  // file inside the root, a secret file included. A sandboxed command cannot read `.env` (masked)
  // but can link AGENTS.md to it; the next session sends it to the model and the session file. A
  // cloned repository can ship the same link.
  // ---------------------------------------------------------------------------------------------
  test('AGENTS.md linked by a sandboxed command to the masked .env does not put it into the prompt', async () => {
    await withProject(async (project) => {
      await writeFile(join(project.root, '.env'), `OPENAI_API_KEY=${CANARY}\n`);
      const result = await sandboxed(project, 'cat .env; ln -s .env AGENTS.md');
      assert.doesNotMatch(result.output.text, new RegExp(CANARY), 'precondition: the sandbox masks .env');
      const prompt = await buildSystemPrompt({ root: project.root, now: new Date(0) });
      assert.doesNotMatch(prompt.text, new RegExp(CANARY), 'the secret the sandbox masks went into the system prompt');
    });
  });

  test('AGENTS.md that a repository ships as a link to a secret file is not read', async () => {
    await withProject(async (project) => {
      await mkdir(join(project.root, 'config'));
      await writeFile(join(project.root, 'config', 'prod.pem'), `-----BEGIN PRIVATE KEY-----\n${CANARY}\n`);
      await symlink('config/prod.pem', join(project.root, 'AGENTS.md'));
      const prompt = await buildSystemPrompt({ root: project.root, now: new Date(0) });
      assert.doesNotMatch(prompt.text, new RegExp(CANARY));
    });
  });

  // ---------------------------------------------------------------------------------------------
  // What the sandbox shows, chosen by the project: findRepository follows a root `.git` file's
  // `gitdir:` into the project and then trusts that git directory's `commondir`, which can name any
  // host directory not on the refusal list (other projects, /srv, /mnt, /var/lib…). The quarantine
  // renames a planted `.git`, but when the rename fails (an unprivileged command makes the root
  // read-only first) the tree is only marked unverified, and every later sandboxed command is
  // still built from the planted pointer.
  // ---------------------------------------------------------------------------------------------
  test("a planted .git pointer's commondir does not show another host directory to later commands", async () => {
    await withProject(async (project) => {
      const other = join(project.base, 'other-project');
      await mkdir(other);
      await writeFile(join(other, 'secret.txt'), `${CANARY}\n`);
      const plant = [
        'printf "gitdir: .gx\\n" > .git',
        'mkdir .gx',
        'echo "$PWD/.git" > .gx/gitdir',
        `echo ${other} > .gx/commondir`,
        'chmod 555 .',
      ].join('; ');
      const request = {
        root: project.root,
        home: project.home,
        mode: 'workspace-write',
        commands: [`cat ${other}/secret.txt; ${plant}`, `cat ${other}/secret.txt`],
      };
      let answer: ProbeAnswer;
      if (isRoot) {
        // Root renames whatever the mode bits say; the rename fails for everyone else.
        if (!existsSync('/usr/bin/setpriv')) return;
        for (const path of [project.base, project.root, project.home, other]) await chown(path, 65534, 65534);
        await chmod(project.base, 0o755);
        answer = await runProbe(['/usr/bin/setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', '--'], request);
      } else {
        answer = await runProbe(['/usr/bin/env'], request);
      }
      await chmod(project.root, 0o755);
      if (!answer.available) return;
      const [first, second] = answer.results;
      assert.doesNotMatch(first!.output, new RegExp(CANARY), 'precondition: the other directory is not shown');
      assert.ok(first!.unverified, 'precondition: the rename failed and the tree was marked unverified');
      assert.doesNotMatch(second!.output, new RegExp(CANARY), 'the planted commondir showed a host directory outside the project');
    });
  });

  // ---------------------------------------------------------------------------------------------
  // Memory outside every limit: /tmp, /var/tmp and /dev (with /dev/shm) are tmpfs mounts of
  // bwrap's default size, half the machine's memory each, so together 150% of it; their pages are
  // not counted by RLIMIT_DATA, and with 64 tasks per core one command can hold all of the host's
  // memory in files until its timeout.
  // ---------------------------------------------------------------------------------------------
  test("a command cannot hold more memory in the sandbox's tmpfs mounts than its memory limit", async () => {
    await withProject(async (project) => {
      const limits = { ...defaultResourceLimits(30_000), dataBytes: 64 * 1024 * 1024 };
      const result = await sandboxed(
        project,
        'for d in /tmp /var/tmp /dev/shm; do head -c 100M /dev/zero > $d/fill 2>/dev/null; done; du -cb /tmp/fill /var/tmp/fill /dev/shm/fill | tail -1',
        { mode: 'read-only' },
        { limits },
      );
      const held = Number(/^(\d+)\s+total/m.exec(result.output.text)?.[1] ?? Number.NaN);
      assert.ok(Number.isFinite(held), result.output.text);
      assert.ok(held <= limits.dataBytes, `a command limited to 64 MiB of memory held ${held} bytes in tmpfs`);
    });
  });

  test("the sandbox's writable tmpfs mounts together are smaller than the machine's memory", async () => {
    await withProject(async (project) => {
      const result = await sandboxed(project, "stat -c '%d' /tmp /var/tmp /dev/shm; stat -f -c '%b %S' /tmp /var/tmp /dev/shm", {
        mode: 'read-only',
      });
      const lines = result.output.text.trim().split('\n');
      const devices = lines.slice(0, 3);
      const sizes = lines
        .slice(3, 6)
        .map((line) => line.split(' ').map(Number))
        .map(([blocks, size]) => blocks! * size!);
      const distinct = new Map(devices.map((device, index) => [device, sizes[index]!]));
      const total = [...distinct.values()].reduce((sum, size) => sum + size, 0);
      const { totalmem } = await import('node:os');
      assert.ok(total < totalmem(), `the sandbox may write ${total} bytes of tmpfs on a machine with ${totalmem()} bytes of memory`);
    });
  });
});
