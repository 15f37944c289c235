// The prompts typed into interactive sessions, kept across sessions in `<home>/history.jsonl`
// (one `{"prompt": …}` line each, oldest first) so Up recalls them in the next `glassbox` too, as
// a shell's history does. The file is private (0600, created so and re-set on every write): prompts
// can hold anything. What looks like a credential (an API key, a bearer token, a private key: the
// shapes trace export redacts) is never written, nor is a prompt over 16 KB (a pasted log is not
// worth keeping); both stay recallable in the running process. The file is cut back to the newest
// MAX_HISTORY_ENTRIES once it holds twice that.

import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { chmod, mkdir, open, rename } from 'node:fs/promises';
import { readProjectFile } from '../workspace/index.js';
import { join } from 'node:path';
import { createRedactor } from '../telemetry/index.js';

export const HISTORY_FILE = 'history.jsonl';
export const MAX_HISTORY_ENTRIES = 1000;
export const MAX_HISTORY_PROMPT_CHARS = 16 * 1024;

export type SkipReason = 'secret' | 'too-large' | 'blank';

export class PromptHistoryFile {
  private entries: string[] = [];
  private lines = 0;
  /** The file ends mid-line (a write cut short): the next append starts a new line first. */
  private cutShort = false;
  private readonly looksSecret: (text: string) => boolean;
  private readonly maxEntries: number;

  constructor(
    readonly home: string,
    options: { env?: NodeJS.ProcessEnv; maxEntries?: number } = {},
  ) {
    const redact = createRedactor([], options.env ?? process.env);
    this.looksSecret = (text) => redact(text) !== text;
    this.maxEntries = options.maxEntries ?? MAX_HISTORY_ENTRIES;
  }

  get path(): string {
    return join(this.home, HISTORY_FILE);
  }

  /** The stored prompts, oldest first; a missing or damaged file is an empty history, never an error. */
  async load(): Promise<readonly string[]> {
    const text = await readHistoryFile(this.path);
    this.cutShort = text !== '' && !text.endsWith('\n');
    const prompts: string[] = [];
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue;
      this.lines += 1;
      try {
        const parsed = JSON.parse(line) as { prompt?: unknown };
        if (typeof parsed.prompt === 'string' && parsed.prompt !== prompts.at(-1)) prompts.push(parsed.prompt);
      } catch {
        // A line cut short by a crash: skipped.
      }
    }
    this.entries = prompts.slice(-this.maxEntries);
    return this.entries;
  }

  /** Why a prompt would not be written, or null when it would. */
  skipReason(prompt: string): SkipReason | null {
    if (prompt.trim() === '') return 'blank';
    if (prompt.length > MAX_HISTORY_PROMPT_CHARS) return 'too-large';
    return this.looksSecret(prompt) ? 'secret' : null;
  }

  /** Appends one prompt (unless skipped or a repeat of the last); returns why it was skipped. */
  async append(prompt: string): Promise<SkipReason | null> {
    const reason = this.skipReason(prompt);
    if (reason !== null || this.entries.at(-1) === prompt) return reason;
    this.entries.push(prompt);
    await mkdir(this.home, { recursive: true, mode: 0o700 });
    if (this.lines + 1 > 2 * this.maxEntries) {
      this.entries = this.entries.slice(-this.maxEntries);
      await this.rewrite();
      return null;
    }
    // Never through a symlink: appending would write the prompt into (and chmod) its target.
    const file = await open(this.path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW, 0o600);
    try {
      // The mode given to open applies only when it creates the file.
      await file.chmod(0o600);
      await file.appendFile(`${this.cutShort ? '\n' : ''}${JSON.stringify({ prompt })}\n`);
      this.cutShort = false;
    } finally {
      await file.close();
    }
    this.lines += 1;
    return null;
  }

  private async rewrite(): Promise<void> {
    const temporary = `${this.path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    // Created new ('wx'): a name planted in advance (a symlink, say) fails instead of being followed.
    const file = await open(temporary, 'wx', 0o600);
    try {
      await file.writeFile(this.entries.map((prompt) => `${JSON.stringify({ prompt })}\n`).join(''));
    } finally {
      await file.close();
    }
    await chmod(temporary, 0o600);
    await rename(temporary, this.path);
    this.lines = this.entries.length;
  }
}

/** The most of a history file that is read: far above 1,000 prompts of normal size. */
const MAX_HISTORY_FILE_BYTES = 8 * 1024 * 1024;

/** The file's text; empty when it is missing, not a regular file (a FIFO, a symlink) or too large. */
function readHistoryFile(path: string): Promise<string> {
  return readProjectFile(path, { root: null, maxBytes: MAX_HISTORY_FILE_BYTES, noFollow: true }).then(
    (text) => text ?? '',
    () => '',
  );
}

/**
 * The editor's Up history for this process: `<home>/history.jsonl` as read at start, then each
 * prompt sent here, appended to the file in order (one warning if the file cannot be written).
 */
export class TypedPrompts {
  private typed: string[] = [];
  private writes: Promise<void> = Promise.resolve();
  private warned = false;

  constructor(
    private readonly file: PromptHistoryFile,
    private readonly warn: (message: string) => void,
  ) {}

  /** Oldest first. */
  get list(): readonly string[] {
    return this.typed;
  }

  async load(): Promise<readonly string[]> {
    this.typed = [...(await this.file.load())];
    return this.typed;
  }

  /** Kept for Up; false when it adds nothing (blank, or the same as the last). */
  remember(prompt: string): boolean {
    const kept = prompt.trim();
    if (kept === '' || this.typed.at(-1) === kept) return false;
    this.typed.push(kept);
    this.writes = this.writes
      .then(() => this.file.append(kept))
      .then(
        () => {},
        (error: unknown) => {
          if (this.warned) return;
          this.warned = true;
          this.warn(String((error as Error)?.message ?? error));
        },
      );
    return true;
  }

  /** A loaded session's prompts not typed here, then what was typed here (newest last, so first on Up). */
  withSession(prompts: readonly string[]): string[] {
    return [...prompts.map((p) => p.trim()).filter((p) => !this.typed.includes(p)), ...this.typed];
  }

  /** Resolves when every prompt remembered so far has been written (or failed to be). */
  written(): Promise<void> {
    return this.writes;
  }
}
