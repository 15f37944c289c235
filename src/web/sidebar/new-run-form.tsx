// The prompt box and run settings. Sandbox and approval choices stop at the server's caps: a run
// may be stricter than the server, never looser (the server would answer 403).

import { useEffect, useId, useState, type FormEvent, type KeyboardEvent, type RefObject } from 'react';
import {
  APPROVAL_ORDER,
  SANDBOX_ORDER,
  WIRE_API_NAMES,
  type ApprovalPolicy,
  type ModelsInfo,
  type SandboxMode,
  type StartRunRequest,
  type WireApi,
} from '../api/index.js';

export interface ContinueTarget {
  sessionId: string;
  title: string;
}

export interface NewRunFormProps {
  models: ModelsInfo;
  target: ContinueTarget | null;
  running: boolean;
  cancelRequested: boolean;
  error: string | null;
  promptRef: RefObject<HTMLTextAreaElement | null>;
  onSubmit(request: Omit<StartRunRequest, 'sessionId'>): Promise<boolean>;
  onCancel(): void;
  onNewSession(): void;
  /** A run this page follows is going in another session: the form waits for it. */
  busyElsewhere?: boolean;
  onShowRun?(): void;
}

/** The choices up to and including the cap. */
export function allowedUpTo<T extends string>(order: readonly T[], cap: T): T[] {
  const index = order.indexOf(cap);
  return index === -1 ? [...order] : order.slice(0, index + 1);
}

function clampTo<T extends string>(allowed: T[], wanted: T): T {
  return allowed.includes(wanted) ? wanted : allowed[allowed.length - 1]!;
}

const SANDBOX_HINT: Record<SandboxMode, string> = {
  'read-only': 'Nothing may be written.',
  'workspace-write': 'Writes inside the project only.',
  'danger-full-access': 'No sandbox at all.',
};

const APPROVAL_HINT: Record<ApprovalPolicy, string> = {
  untrusted: 'Asks before anything not known to be safe.',
  'on-request': 'Asks when the sandbox is not enough.',
  never: 'Never asks; what is not allowed fails.',
};

function parseCompactAt(value: string): number | string | undefined {
  const trimmed = value.trim();
  if (trimmed === '') return undefined;
  return /^\d+$/.test(trimmed) ? Number(trimmed) : trimmed;
}

export function NewRunForm({
  models,
  target,
  running,
  cancelRequested,
  error,
  promptRef,
  onSubmit,
  onCancel,
  onNewSession,
  busyElsewhere = false,
  onShowRun,
}: NewRunFormProps) {
  const sandboxes = allowedUpTo(SANDBOX_ORDER, models.caps.sandbox);
  const policies = allowedUpTo(APPROVAL_ORDER, models.caps.approvalPolicy);
  const [prompt, setPrompt] = useState('');
  const [model, setModel] = useState(models.defaults.model);
  const [wireApi, setWireApi] = useState<WireApi>(models.defaults.wireApi);
  const [sandbox, setSandbox] = useState<SandboxMode>(clampTo(sandboxes, models.defaults.sandbox));
  const [approvalPolicy, setApprovalPolicy] = useState<ApprovalPolicy>(clampTo(policies, models.defaults.approvalPolicy));
  const [compactAt, setCompactAt] = useState('');
  const [submitting, setSubmitting] = useState(false);
  const ids = { prompt: useId(), model: useId(), wire: useId(), sandbox: useId(), policy: useId(), compact: useId(), models: useId() };

  // The caps can only be learned from the server; keep the choice valid if they arrive late.
  useEffect(() => setSandbox((current) => clampTo(sandboxes, current)), [models.caps.sandbox]);
  useEffect(() => setApprovalPolicy((current) => clampTo(policies, current)), [models.caps.approvalPolicy]);

  async function submit(event?: FormEvent) {
    event?.preventDefault();
    if (running || submitting || prompt.trim() === '') return;
    setSubmitting(true);
    const started = await onSubmit({
      prompt: prompt.trim(),
      model: model.trim() || undefined,
      wireApi,
      sandbox,
      approvalPolicy,
      compactAt: parseCompactAt(compactAt),
    });
    setSubmitting(false);
    if (started) setPrompt('');
  }

  function onKeyDown(event: KeyboardEvent<HTMLTextAreaElement>) {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      void submit();
    }
  }

  return (
    <form className="run-form" onSubmit={(event) => void submit(event)} aria-label="New run">
      <div className="run-target">
        {target === null ? (
          <span>
            <strong>New session</strong>
          </span>
        ) : (
          <>
            <span className="run-target-text">
              Continuing <strong title={target.sessionId}>{target.title || target.sessionId}</strong>
            </span>
            <button type="button" className="small ghost" onClick={onNewSession} disabled={running && !busyElsewhere}>
              New session
            </button>
          </>
        )}
      </div>
      <label htmlFor={ids.prompt} className="visually-hidden">
        Prompt
      </label>
      <textarea
        id={ids.prompt}
        ref={promptRef}
        value={prompt}
        onChange={(event) => setPrompt(event.target.value)}
        onKeyDown={onKeyDown}
        placeholder={target === null ? 'What should the agent do?' : 'Next prompt for this session…'}
        rows={5}
        disabled={running}
      />
      <div className="form-grid">
        <label htmlFor={ids.model}>Model</label>
        <input
          id={ids.model}
          list={ids.models}
          value={model}
          onChange={(event) => setModel(event.target.value)}
          disabled={running}
          autoComplete="off"
          spellCheck={false}
        />
        <datalist id={ids.models}>
          {models.models.map((info) => (
            <option key={info.id} value={info.id} />
          ))}
        </datalist>
        <label htmlFor={ids.wire}>Wire API</label>
        <select id={ids.wire} value={wireApi} onChange={(event) => setWireApi(event.target.value as WireApi)} disabled={running}>
          {WIRE_API_NAMES.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
        <label htmlFor={ids.sandbox}>Sandbox</label>
        <select id={ids.sandbox} value={sandbox} onChange={(event) => setSandbox(event.target.value as SandboxMode)} disabled={running}>
          {sandboxes.map((mode) => (
            <option key={mode} value={mode}>
              {mode}
            </option>
          ))}
        </select>
        <span className="field-hint">{SANDBOX_HINT[sandbox]}</span>
        <label htmlFor={ids.policy}>Approval</label>
        <select
          id={ids.policy}
          value={approvalPolicy}
          onChange={(event) => setApprovalPolicy(event.target.value as ApprovalPolicy)}
          disabled={running}
        >
          {policies.map((policy) => (
            <option key={policy} value={policy}>
              {policy}
            </option>
          ))}
        </select>
        <span className="field-hint">{APPROVAL_HINT[approvalPolicy]}</span>
        <label htmlFor={ids.compact}>Compact at</label>
        <input
          id={ids.compact}
          value={compactAt}
          onChange={(event) => setCompactAt(event.target.value)}
          placeholder="default (e.g. 80% or 6000)"
          disabled={running}
          inputMode="text"
        />
      </div>
      <div className="run-actions">
        {busyElsewhere ? (
          <span className="small-text">
            A run is going in another session.{' '}
            <button type="button" className="link" onClick={onShowRun}>
              Show it
            </button>
          </span>
        ) : running ? (
          <button type="button" className="danger" onClick={onCancel} disabled={cancelRequested}>
            {cancelRequested ? 'Cancelling…' : 'Cancel run'}
          </button>
        ) : (
          <button type="submit" className="primary" disabled={submitting || prompt.trim() === ''}>
            {target === null ? 'Start run' : 'Continue session'}
          </button>
        )}
        <span className="muted hint">Ctrl+Enter to run</span>
      </div>
      {error !== null && (
        <p className="error-text" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}
