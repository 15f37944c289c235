// The editor bin/glassbox.js paints before the CLI loads (src/tui/first-frame.ts, issue 25 item 10):
// which command lines it paints for, read off the real program; what it writes, echoes, keeps and
// gives back, on stand-in terminal streams (a real terminal: first-paint-pty.test.ts).

import assert from 'node:assert/strict';
import { PassThrough, Writable } from 'node:stream';
import { before, describe, test } from 'node:test';
import type { Command } from 'commander';
import { buildProgram } from '../../src/cli/main.js';
import { opensSession, paintFirstFrame, type EntryArgv } from '../../src/tui/first-frame.js';

interface BundleCli {
  entryArgvOf(program: Command): EntryArgv;
}

let spec: EntryArgv;
before(async () => {
  const { entryArgvOf } = (await import(new URL('../../scripts/bundle-cli.js', import.meta.url).href)) as BundleCli;
  spec = entryArgvOf(buildProgram());
});

describe('which command lines open the session (read off the program)', () => {
  test('no command, chat, and options with their values open it', () => {
    for (const args of [
      [],
      ['chat'],
      ['chat', 'fix', 'the', 'exec', 'test'],
      ['-m', 'exec'],
      ['--model', 'serve', '--sandbox', 'workspace-write'],
      ['--sandbox=workspace-write', '--network'],
      ['--resume', 'last'],
      ['-C', 'sessions', 'chat', '-m', 'gpt-5'],
    ]) {
      assert.equal(opensSession(args, spec), true, args.join(' '));
    }
  });

  test('every other command, help, version and a stray word do not', () => {
    const program = buildProgram();
    const names = program.commands.flatMap((command) => [command.name(), ...command.aliases()]).filter((name) => name !== 'chat');
    assert.ok(names.includes('exec') && names.includes('serve'), names.join(' '));
    for (const name of names) assert.equal(opensSession([name], spec), false, name);
    for (const args of [['--help'], ['-h'], ['-V'], ['chat', '--help'], ['-m', 'x', 'exec', 'hi'], ['fix', 'it'], ['help']]) {
      assert.equal(opensSession(args, spec), false, args.join(' '));
    }
  });
});

class FakeTerminal {
  readonly stdin = Object.assign(new PassThrough(), {
    isTTY: true,
    raw: [] as boolean[],
    setRawMode(this: { raw: boolean[] }, on: boolean) {
      this.raw.push(on);
      return this;
    },
  });
  out = '';
  err = '';
  readonly stdout = Object.assign(
    this.writable((text) => (this.out += text)),
    { isTTY: true, columns: 40 },
  );
  readonly stderr = this.writable((text) => (this.err += text));

  private writable(sink: (text: string) => void): Writable {
    return new Writable({
      write(chunk: Buffer, _encoding, done) {
        sink(chunk.toString());
        done();
      },
    });
  }
}

function paint(terminal: FakeTerminal) {
  const frame = paintFirstFrame({
    stdin: terminal.stdin as unknown as NodeJS.ReadStream,
    stdout: terminal.stdout as unknown as NodeJS.WriteStream,
    stderr: terminal.stderr as unknown as NodeJS.WriteStream,
    color: false,
  });
  assert.ok(frame !== null);
  return frame;
}

/** What the terminal shows, attributes (dim, inverse) dropped. */
const plain = (text: string) => text.replace(/\x1b\[[0-9;]*m/g, '');
const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('the first frame', () => {
  test('paints the editor box and the hint, turns on raw mode and bracketed paste', (t) => {
    const terminal = new FakeTerminal();
    const frame = paint(terminal);
    t.after(() => frame.abandon());
    assert.match(plain(terminal.out), /╭─{38}╮\n│ › {2}\s*│\n╰─{38}╯\nstarting glassbox…\n\nEnter send · Ctrl-J newline/);
    assert.ok(terminal.out.endsWith('\x1b[?2004h'), JSON.stringify(terminal.out.slice(-20)));
    assert.deepEqual(terminal.stdin.raw, [true]);
  });

  test('echoes typed text into the editor and gives the keys to the session, Enter included', async () => {
    const terminal = new FakeTerminal();
    const frame = paint(terminal);
    terminal.stdin.write('fix it');
    await tick();
    assert.match(plain(terminal.out), /│ › fix it {2}\s*│/);
    terminal.stdin.write('\x7fT\rnext');
    await tick();
    assert.match(plain(terminal.out), /│ › fix iT {2}\s*│/);
    // Enter stops the echo: what follows is the session's to show.
    assert.doesNotMatch(plain(terminal.out), /next/);
    const painted = terminal.out.length;
    frame.handOff();
    // Each row erased, up to the frame's first; the session draws in its place.
    assert.equal(terminal.out.slice(painted), `${'\x1b[2K\x1b[1A'.repeat(6)}\x1b[2K\r`);
    assert.equal(String(terminal.stdin.read()), 'fix it\x7fT\rnext');
    assert.deepEqual(terminal.stdin.raw, [true]);
    // The streams write straight through again.
    terminal.stdout.write('frame');
    assert.ok(terminal.out.endsWith('\x1b[2K\rframe'));
  });

  test('any other output first erases the frame and puts the terminal back', async () => {
    const terminal = new FakeTerminal();
    const frame = paint(terminal);
    terminal.stdin.write('ab');
    await tick();
    terminal.stderr.write('glassbox: unknown sandbox mode "x"\n');
    assert.ok(terminal.out.endsWith('\x1b[1A\x1b[2K\r\x1b[?2004l'), JSON.stringify(terminal.out.slice(-30)));
    assert.equal(terminal.err, 'glassbox: unknown sandbox mode "x"\n');
    assert.deepEqual(terminal.stdin.raw, [true, false]);
    // Once: a later hand-off or write changes nothing.
    const after = terminal.out;
    frame.handOff();
    frame.abandon();
    terminal.stderr.write('more\n');
    assert.equal(terminal.out, after);
    assert.equal(String(terminal.stdin.read()), 'ab');
  });

  test('is not painted unless both sides are a terminal', () => {
    const terminal = new FakeTerminal();
    const stdout = Object.assign(new PassThrough(), { isTTY: false });
    const frame = paintFirstFrame({
      stdin: terminal.stdin as unknown as NodeJS.ReadStream,
      stdout: stdout as unknown as NodeJS.WriteStream,
      stderr: terminal.stderr as unknown as NodeJS.WriteStream,
    });
    assert.equal(frame, null);
    assert.deepEqual(terminal.stdin.raw, []);
  });
});
