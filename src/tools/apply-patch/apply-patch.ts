// apply_patch: a multi-file change in the envelope format. Parse, plan every file in memory, and
// only then commit all writes at once; no prior read is required because the hunks' context lines
// already prove the model knows the current text.

import { resolve } from 'node:path';
import { z } from 'zod';
import { builtInSchema, loadToolDescription, type Tool, type ToolContext, type ToolResult } from '../../agent/index.js';
import { commitFileChanges } from '../atomic-write.js';
import { capText, recordFileStamp, throwIfAborted, unifiedDiff } from '../text-file/index.js';
import { parsePatch, scanPatchPaths } from './parse-patch.js';
import { planPatch, type PatchSummaryEntry } from './plan-patch.js';
import { toolSessionState } from '../tool-session-state.js';
import { isSecretPath } from '../../workspace/index.js';

const applyPatchSchema = builtInSchema(
  'apply_patch',
  z.object({
    patch: z.string().min(1).describe("From '*** Begin Patch' to '*** End Patch'."),
  }),
);

export type ApplyPatchArgs = z.infer<typeof applyPatchSchema>;

export function createApplyPatchTool(): Tool<ApplyPatchArgs> {
  return {
    name: 'apply_patch',
    description: loadToolDescription(new URL('./apply-patch.md', import.meta.url)),
    schema: applyPatchSchema,
    readOnly: false,
    strict: false,
    access(args, context) {
      let paths: string[];
      try {
        paths = parsePatch(args.patch).flatMap((operation) =>
          operation.kind === 'update' && operation.moveTo !== null ? [operation.path, operation.moveTo] : [operation.path],
        );
      } catch {
        // execute reports the parse error; permissions still get every path the text names.
        paths = scanPatchPaths(args.patch);
      }
      return { kind: 'write', paths: [...new Set(paths.map((path) => resolve(context.root, path)))] };
    },
    execute: applyPatch,
  };
}

async function applyPatch(args: ApplyPatchArgs, context: ToolContext): Promise<ToolResult> {
  throwIfAborted(context.signal);
  const operations = parsePatch(args.patch);
  const plan = await planPatch(operations, context.root);
  throwIfAborted(context.signal);
  await commitFileChanges(plan.changes, { signal: context.signal });

  for (const change of plan.changes) {
    if (change.content === null) toolSessionState(context).fileStamps.delete(change.path);
    else await recordFileStamp(toolSessionState(context), change.path);
  }

  const listing = plan.summary.map(summaryLine).join('\n');
  const diffs = plan.summary
    .map(summaryDiff)
    .filter((diff) => diff !== '')
    .join('');
  const count = plan.summary.length;
  const header = `Applied patch (${count} ${count === 1 ? 'operation' : 'operations'}):\n${listing}`;
  return { output: diffs === '' ? header : `${header}\n\n${capText(diffs)}` };
}

function summaryLine(entry: PatchSummaryEntry): string {
  return entry.marker === 'R' ? `R ${entry.path} -> ${entry.to}` : `${entry.marker} ${entry.path}`;
}

function summaryDiff(entry: PatchSummaryEntry): string {
  switch (entry.marker) {
    case 'A':
      return unifiedDiff(null, entry.path, '', entry.after);
    case 'M':
      return unifiedDiff(entry.path, entry.path, entry.before, entry.after, { writtenOnly: isSecretPath(entry.path) });
    case 'R': {
      const writtenOnly = isSecretPath(entry.path) || isSecretPath(entry.to);
      return entry.before === entry.after ? '' : unifiedDiff(entry.path, entry.to, entry.before, entry.after, { writtenOnly });
    }
    case 'D':
      return '';
  }
}
