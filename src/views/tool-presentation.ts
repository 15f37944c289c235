// What a tool says about its calls to the people watching: its title, the one-line phrase of a
// call, and the files a call writes. Types only; the built-in tools' entries are in
// tool-presentations.ts, the one place a tool's presentation is written (browser-safe, so the
// workbench runs the same entry as the terminal).

import type { PlanStepStatus } from '../protocol/index.js';

export interface ActionPhrase {
  verb: string;
  /** How it turned out, when the call did not simply run: " — denied", " — awaiting approval". */
  outcome?: string;
  /** What the action was about; empty when the verb says it all. */
  subject: string;
  /** How to show the subject: a command in code style, a path, or a quoted search. */
  style: 'code' | 'path' | 'quote' | 'plain';
  /** Trailing detail, e.g. " in src" or " (lines 10–40)". */
  detail: string;
}

/** A row of a change as the faces show it: a diff line, a hunk header or a file's header. */
export interface ChangeRow {
  kind: 'add' | 'del' | 'ctx' | 'hunk' | 'file';
  text: string;
}

/** What a call asks to change, read from its arguments alone (no file is read). */
export interface RequestedChange {
  /** The files it names, project-relative where the root is known. */
  paths: string[];
  /** What kind of change it is, in a sentence. */
  note: string;
  rows: ChangeRow[];
}

/** One step of a plan a call shows as a checklist (protocol's `PlanStep`). */
export interface ChecklistStep {
  step: string;
  status: PlanStepStatus;
}

/** A plan as a call sets it: every face draws it as a checklist, and the latest one stands. */
export interface Checklist {
  explanation: string | null;
  steps: ChecklistStep[];
}

export interface ToolPresentation {
  /** What the tool is, as a heading names it: "Write file". */
  title: string;
  /** The call in one line: past tense once it ran (`done`: "Wrote a.txt"), else imperative ("Write a.txt"). */
  phrase(args: Record<string, unknown>, done: boolean): ActionPhrase;
  /**
   * The files a call writes, as the model named them (a face keeps their content before the call
   * runs, for /diff). Absent: the tool writes no file through its arguments.
   */
  writes?(args: Record<string, unknown>): string[];
  /**
   * What a call asks to change, from its arguments alone: the model's own text, shown where the
   * runner's dry run cannot say more (`root`: to name paths project-relative). Null when the
   * arguments do not say.
   */
  changes?(args: Record<string, unknown>, root: string): RequestedChange | null;
  /**
   * The plan a call sets, shown as a checklist (the terminal, the workbench, ACP's `plan`,
   * OpenTelemetry). Absent: the tool keeps no plan; null: these arguments hold none.
   */
  checklist?(args: Record<string, unknown>): Checklist | null;
}
