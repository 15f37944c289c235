// write_file: create or overwrite a whole file, atomically, keeping the conventions (mode, CRLF,
// BOM) of the file it replaces.

import { resolve } from 'node:path';
import { z } from 'zod';
import { builtInSchema, loadToolDescription, type Tool, type ToolContext, type ToolResult } from '../../agent/index.js';
import { writeFileAtomic } from '../atomic-write.js';
import { resolveInsideRoot } from '../path-policy.js';
import {
  assertCanCreate,
  capText,
  countLines,
  decodeFile,
  encodeText,
  isDirectoryError,
  isPureCrlf,
  MAX_EDITABLE_BYTES,
  readExistingFile,
  recordFileStamp,
  statOrNull,
  throwIfAborted,
  unifiedDiff,
} from '../text-file/index.js';
import { toolSessionState } from '../tool-session-state.js';
import { isSecretPath } from '../../workspace/index.js';

const writeFileSchema = builtInSchema(
  'write_file',
  z.object({
    path: z.string().min(1).describe('Relative to the project root.'),
    // write-file.md: `content` is the complete new text.
    content: z.string(),
  }),
);

export type WriteFileArgs = z.infer<typeof writeFileSchema>;

export function createWriteFileTool(): Tool<WriteFileArgs> {
  return {
    name: 'write_file',
    description: loadToolDescription(new URL('./write-file.md', import.meta.url)),
    schema: writeFileSchema,
    readOnly: false,
    strict: false,
    access(args, context) {
      return { kind: 'write', paths: [resolve(context.root, args.path)] };
    },
    execute: writeFile,
  };
}

/** What was there before; `opaque` content (binary or huge) is replaced without a diff. */
type PreviousContent = { kind: 'none' } | { kind: 'opaque'; reason: string } | { kind: 'text'; text: string; bom: boolean };

async function writeFile(args: WriteFileArgs, context: ToolContext): Promise<ToolResult> {
  throwIfAborted(context.signal);
  const target = await resolveInsideRoot(context.root, args.path);
  const shown = target.relative;
  // A dangling symlink resolves as missing: it is replaced by a new file, never followed.
  const stats = target.exists ? await statOrNull(target.absolute) : null;
  if (target.relative === '.' || stats?.isDirectory()) throw isDirectoryError(shown);

  const editorFiles = toolSessionState(context).editorFiles;
  let previous: PreviousContent = { kind: 'none' };
  if (stats === null) {
    await assertCanCreate(target.absolute, shown);
  } else if (stats.size > MAX_EDITABLE_BYTES) {
    previous = { kind: 'opaque', reason: `it was ${stats.size} bytes, too large to diff` };
  } else if (editorFiles?.read) {
    previous = { kind: 'text', text: await editorFiles.read(target.absolute, context.signal), bom: false };
  } else {
    const decoded = decodeFile((await readExistingFile(target.absolute, shown)).bytes);
    previous =
      decoded.kind === 'binary'
        ? { kind: 'opaque', reason: `it was binary: ${decoded.reason}` }
        : { kind: 'text', text: decoded.text, bom: decoded.bom };
  }

  let content = args.content;
  const notes: string[] = [];
  if (previous.kind === 'text' && isPureCrlf(previous.text) && content.includes('\n') && !content.includes('\r\n')) {
    content = content.replace(/\n/g, '\r\n');
    notes.push("kept the file's CRLF line endings");
  }
  const bom = previous.kind === 'text' && previous.bom;

  if (previous.kind === 'text' && previous.text === content) {
    await recordFileStamp(toolSessionState(context), target.absolute);
    return { output: `${shown} already has this content; nothing was written.` };
  }

  throwIfAborted(context.signal);
  if (editorFiles?.write) {
    // The editor writes it (its buffer, saved or not); the disk's stamp is kept only where there is a file.
    await editorFiles.write(target.absolute, content, context.signal);
    if ((await statOrNull(target.absolute)) !== null) await recordFileStamp(toolSessionState(context), target.absolute);
  } else {
    await writeFileAtomic(target.absolute, encodeText(content, bom), { signal: context.signal });
    await recordFileStamp(toolSessionState(context), target.absolute);
  }

  const lineCount = countLines(content);
  const newText = content.replace(/\r\n/g, '\n');
  if (previous.kind === 'none') {
    const summary = `Created ${shown} (${lineCount} ${lineCount === 1 ? 'line' : 'lines'})`;
    return { output: withDiff(summary, unifiedDiff(null, shown, '', newText)) };
  }
  if (previous.kind === 'opaque') {
    return {
      output: `Overwrote ${shown} (${lineCount} lines). Note: the previous content (${previous.reason}) has been replaced by this text; no diff is shown.`,
    };
  }
  const summary = `Overwrote ${shown} (${lineCount} lines${notes.length > 0 ? `; ${notes.join('; ')}` : ''})`;
  const writtenOnly = isSecretPath(shown);
  const diff = unifiedDiff(shown, shown, previous.text.replace(/\r\n/g, '\n'), newText, { writtenOnly });
  return { output: withDiff(writtenOnly ? `${summary}; a secret file: only the lines written are shown` : summary, diff) };
}

function withDiff(summary: string, diff: string): string {
  return diff === '' ? summary : `${summary}\n\n${capText(diff)}`;
}
