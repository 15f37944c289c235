// The Context tab: how full the context was at each round, what compaction did about it, and a
// way to compact now.

import { useEffect, useId, useMemo, useState } from 'react';
import { api, describeError, type ContextInfo, type SkillContextCost } from '../api/index.js';
import { formatTokens } from '../format/index.js';
import { compactionView, MarkdownText, type CompactionView } from '../transcript/index.js';
import { ContextChart } from './context-chart.js';
import type { ChartCompaction } from './context-geometry.js';

export interface ContextTabProps {
  sessionId: string | null;
  /** Changes whenever the session may have changed (a round completed, a compaction, a run ended). */
  version: string;
  runActive: boolean;
  onCompacted(): void;
  onOpenCall(index: number): void;
}

function CompactionCard({ compaction, turn }: { compaction: CompactionView; turn: number | null }) {
  const rows: Array<[string, string]> = [
    ['Trigger', [compaction.trigger, compaction.phase].filter(Boolean).join(' · ') || '–'],
    ['Kind', compaction.kind ?? '–'],
    [
      'Tokens',
      `${formatTokens(compaction.tokensBefore)} → ${formatTokens(compaction.tokensAfter)}${compaction.estimated ? ' (estimated)' : ''}`,
    ],
    ['Items', `${compaction.itemsRemoved ?? '–'} removed, ${compaction.itemsKept ?? '–'} kept`],
  ];
  return (
    <article className="compaction-card" data-compaction-id={compaction.compactionId}>
      <header>
        <strong>Compaction{turn !== null && ` in turn ${turn}`}</strong>
        <span className="muted small-text mono">{compaction.compactionId}</span>
      </header>
      <dl>
        {rows.map(([name, value]) => (
          <div key={name}>
            <dt>{name}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
      {compaction.reason !== '' && <p className="compaction-reason">{compaction.reason}</p>}
      {compaction.summary !== '' && (
        <details className="compaction-summary">
          <summary>Summary</summary>
          <MarkdownText text={compaction.summary} />
        </details>
      )}
    </article>
  );
}

/**
 * What the skills cost in the context the next request carries: the list (on every request) and
 * each body or file the model loaded (until compaction drops it). The terminal's /status reads the
 * same figures (views/'s skillContextCost); estimates at chars/4.
 */
function SkillCost({ skills }: { skills: SkillContextCost }) {
  if (skills.listed === 0 && skills.loaded.length === 0) return null;
  const total = skills.listTokens + skills.loaded.reduce((sum, each) => sum + each.tokens, 0);
  return (
    <section className="skill-cost" aria-label="Skills in context" data-testid="skill-cost">
      <h2 className="section-title">Skills in context</h2>
      <table className="skill-cost-table">
        <tbody>
          <tr>
            <th scope="row">
              Skill list <span className="muted">({skills.listed} listed, on every request)</span>
            </th>
            <td className="mono">~{formatTokens(skills.listTokens)}</td>
          </tr>
          {skills.loaded.map((each, index) => (
            <tr key={`${index}:${each.name}:${each.file ?? ''}`}>
              <th scope="row">
                Loaded: <code>{each.file === null ? each.name : `${each.name}/${each.file}`}</code>
              </th>
              <td className="mono">~{formatTokens(each.tokens)}</td>
            </tr>
          ))}
          {skills.loaded.length === 0 && (
            <tr>
              <th scope="row" className="muted">
                No skill loaded
              </th>
              <td />
            </tr>
          )}
        </tbody>
      </table>
      <p className="muted small-text">
        ~{formatTokens(total)} tokens in all (estimated at 4 characters a token), in every request until a compaction drops a load.
      </p>
    </section>
  );
}

export function ContextTab({ sessionId, version, runActive, onCompacted, onOpenCall }: ContextTabProps) {
  const [info, setInfo] = useState<{ sessionId: string; context: ContextInfo } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [instructions, setInstructions] = useState('');
  const [compacting, setCompacting] = useState(false);
  const [compactError, setCompactError] = useState<string | null>(null);
  const instructionsId = useId();

  useEffect(() => {
    if (sessionId === null) return;
    let stale = false;
    api.context(sessionId).then(
      (context) => {
        if (stale) return;
        setInfo({ sessionId, context });
        setError(null);
      },
      (failure: unknown) => {
        if (!stale) setError(describeError(failure));
      },
    );
    return () => {
      stale = true;
    };
  }, [sessionId, version]);

  const context = info !== null && info.sessionId === sessionId ? info.context : null;
  const compactions = useMemo(
    () =>
      (context?.compactions ?? []).map((payload) => ({
        view: compactionView(payload),
        turn: typeof payload.turn === 'number' ? payload.turn : null,
      })),
    [context],
  );
  const chartCompactions: ChartCompaction[] = compactions.map(({ view, turn }) => ({
    compactionId: view.compactionId,
    turn,
    tokensBefore: view.tokensBefore,
    tokensAfter: view.tokensAfter,
  }));
  // The biggest drop says what compaction did; a sum of drops would count the same context twice.
  const largest = compactions.reduce<CompactionView | null>(
    (best, { view }) =>
      view.tokensBefore !== null &&
      view.tokensAfter !== null &&
      (best === null || view.tokensBefore - view.tokensAfter > (best.tokensBefore ?? 0) - (best.tokensAfter ?? 0))
        ? view
        : best,
    null,
  );

  async function compactNow() {
    if (sessionId === null) return;
    setCompacting(true);
    setCompactError(null);
    try {
      await api.compact(sessionId, instructions);
      setInstructions('');
      onCompacted();
    } catch (failure) {
      setCompactError(describeError(failure));
    } finally {
      setCompacting(false);
    }
  }

  if (sessionId === null) return <p className="muted pad">Open or start a session to see its context.</p>;
  const latest = context?.points[context.points.length - 1];
  return (
    <div className="context-tab">
      {error !== null && (
        <p className="error-text" role="alert">
          {error}
        </p>
      )}
      {context !== null && (
        <>
          <div className="tiles">
            <div className="tile">
              <div className="tile-label">Context now</div>
              <div className="tile-value">{formatTokens(latest?.tokens)}</div>
            </div>
            <div className="tile">
              <div className="tile-label">Threshold / window</div>
              <div className="tile-value">
                {formatTokens(context.threshold)} / {formatTokens(context.window)}
              </div>
            </div>
            <div className="tile" data-testid="compactions-tile">
              <div className="tile-label">Compactions</div>
              <div className="tile-value">{compactions.length}</div>
              <div className="tile-note">
                {largest === null
                  ? 'none yet'
                  : `largest: ${formatTokens(largest.tokensBefore)} → ${formatTokens(largest.tokensAfter)} in context`}
              </div>
            </div>
          </div>
          <ContextChart
            input={{ window: context.window, threshold: context.threshold, points: context.points, compactions: chartCompactions }}
            onOpenCall={onOpenCall}
          />
          {context.skills !== null && <SkillCost skills={context.skills} />}
        </>
      )}
      <section className="compact-now" aria-label="Compact now">
        <label htmlFor={instructionsId}>Compact now — instructions for the summary (optional)</label>
        <textarea
          id={instructionsId}
          rows={2}
          value={instructions}
          onChange={(event) => setInstructions(event.target.value)}
          placeholder="e.g. keep the failing test names"
          disabled={compacting || runActive}
        />
        <div className="row">
          <button type="button" onClick={() => void compactNow()} disabled={compacting || runActive}>
            {compacting ? 'Compacting…' : 'Compact now'}
          </button>
          {runActive && <span className="muted small-text">A run is active on this session.</span>}
        </div>
        {compactError !== null && (
          <p className="error-text" role="alert">
            {compactError}
          </p>
        )}
      </section>
      <div className="compaction-cards">
        {compactions.length === 0 && context !== null && <p className="muted">No compaction yet.</p>}
        {compactions.map(({ view, turn }) => (
          <CompactionCard key={view.compactionId} compaction={view} turn={turn} />
        ))}
      </div>
    </div>
  );
}
