// `/rewind`: pick a turn, see what restoring the files to before it changes, confirm. `/rewind`
// lists the turns; `/rewind N` shows the diff (or the conflicts that refuse it); the same
// `/rewind N` again restores the files and continues in a branch of the conversation before turn
// N — the same checkpoints/ steps as `glassbox rewind`. The confirmation re-plans, and asks again
// if anything changed since the diff was shown.

import { performRewind, prepareRewind, RewindError, sessionTurns, type PreparedRewind } from '../checkpoints/index.js';
import { oneLine, visibleText } from '../terminal-text/index.js';
import { paintDiffLine } from './approval-preview.js';
import type { SessionController } from './session-controller.js';
import type { Theme } from './theme.js';

const MAX_DIFF_LINES = 400;

export interface RewindContext {
  controller: SessionController;
  theme: Theme;
  /** The rewind whose diff was shown last, waiting for its confirmation. */
  pendingRewind?: PreparedRewind | null;
}

export async function rewindCommand(context: RewindContext, sessionId: string, args: string): Promise<void> {
  const { controller, theme } = context;
  if (args !== '' && !/^\d+$/.test(args)) {
    return controller.note({ kind: 'notice', tone: 'error', text: `/rewind takes a turn number, got "${oneLine(args, 40)}"` });
  }
  await controller.track('command', async () => {
    const runner = await controller.getRunner();
    if (args === '') {
      const turns = sessionTurns((await runner.store.read(sessionId)).records);
      const lines = turns.map(({ turn, prompt }) => `${String(turn).padStart(3)}  ${visibleText(oneLine(prompt, 100))}`);
      if (lines.length === 0) lines.push('no turns yet');
      lines.push(theme.dim('/rewind <n> shows what restoring the files to before turn n changes, then asks to confirm'));
      return controller.note({ kind: 'block', title: 'turns', body: lines.join('\n') });
    }
    const toTurn = Number(args);
    const scope = { files: true, conversation: true };
    let prepared: PreparedRewind;
    try {
      prepared = await prepareRewind(runner.store, sessionId, toTurn, { home: controller.options.runner.home, scope });
    } catch (error) {
      if (!(error instanceof RewindError)) throw error;
      return controller.note({ kind: 'notice', tone: 'error', text: `/rewind: ${error.message}` });
    }
    const pending = context.pendingRewind;
    context.pendingRewind = null;
    const plan = prepared.plan!;
    if (
      pending?.sessionId === sessionId &&
      pending.toTurn === toTurn &&
      plan.conflicts.length === 0 &&
      JSON.stringify(pending.diff) === JSON.stringify(prepared.diff)
    ) {
      const outcome = await performRewind(runner.store, prepared, { glassboxVersion: controller.options.glassboxVersion });
      await controller.openSession(outcome.forkId!);
      return controller.note({
        kind: 'notice',
        tone: 'success',
        text: `rewound to before turn ${toTurn}: ${outcome.restored.length} file(s) restored; you are in ${outcome.forkId} now (the parent is unchanged)`,
      });
    }
    const lines: string[] = [];
    for (const line of prepared.diff.slice(0, MAX_DIFF_LINES)) lines.push(paintDiffLine(visibleText(line), theme));
    if (prepared.diff.length > MAX_DIFF_LINES)
      lines.push(theme.dim(`… ${prepared.diff.length - MAX_DIFF_LINES} more diff lines not shown`));
    if (plan.restores.length === 0) lines.push('no file to restore: the project already is as it was before this turn');
    for (const skipped of plan.skipped) lines.push(theme.dim(`not restored: ${visibleText(skipped.path)}: ${skipped.why}`));
    for (const conflict of plan.conflicts) lines.push(`conflict: ${visibleText(conflict.path)}: ${conflict.why}`);
    controller.note({ kind: 'block', title: `rewind to before turn ${toTurn}`, body: lines.join('\n') });
    if (plan.conflicts.length > 0) {
      return controller.note({
        kind: 'notice',
        tone: 'error',
        text: `/rewind refused: ${plan.conflicts.length} conflict(s); nothing was changed`,
      });
    }
    context.pendingRewind = prepared;
    controller.note({
      kind: 'notice',
      tone: 'warning',
      text: `/rewind ${toTurn} again to restore ${plan.restores.length} file(s) and continue in a branch before turn ${toTurn}`,
    });
  });
}
