// The approvals inbox: every tool call of the tenant's runs waiting for a person, nested runs included (GET
// /approvals), oldest first, refreshed while open; each is approved or denied here, bound to the call shown (its
// binding).
import { useState } from 'preact/hooks';
import type { Inbox, InboxItem } from '../../../common/approval-inbox';
import { ApiError, type Api } from '../api';
import { clock, pretty } from '../format';
import { linkTo, runUrl } from '../router';
import { lacksScope, useRoles, useScope } from '../scopes';
import { DecideButtons, decideToolCall } from './decide-buttons';
import { usePolling } from '../polling';

const REFRESH_MS = 3000;

export function ApprovalsPage({ api }: { api: Api }) {
  const [inbox, setInbox] = useState<Inbox>();
  const [error, setError] = useState<string>();
  const [tick, setTick] = useState(0);
  const mayDecide = useScope(api, 'decide');
  const roles = useRoles(api);

  usePolling(
    () => api.get<Inbox>('/approvals?limit=100'),
    {
      onAnswer: (answer) => {
        setInbox(answer);
        setError(undefined);
      },
      onError: setError,
    },
    REFRESH_MS,
    [api, tick],
  );

  const items = inbox?.approvals ?? [];
  return (
    <section class="card approvals-inbox" data-testid="approvals-inbox">
      <h1>Waiting for approval{inbox ? ` (${items.length})` : ''}</h1>
      <p class="muted">
        Tool calls of your runs and their nested runs, oldest first. Listed from Temporal visibility: a call asked a
        moment ago may take a second or two to appear.
      </p>
      {!mayDecide && (
        <p class="muted" data-testid="no-decide">
          You can see these calls but not decide them: {lacksScope('decide')}.
        </p>
      )}
      {error && <p class="error">{error}</p>}
      {inbox && items.length === 0 && (
        <p class="muted" data-testid="inbox-empty">
          No tool call is waiting for a decision.
        </p>
      )}
      {items.map((item) => (
        <InboxEntry
          key={`${item.runId} ${item.toolCallId} ${item.binding}`}
          api={api}
          item={item}
          mayDecide={mayDecide && (!item.escalatedTo || roles.includes(item.escalatedTo))}
          onDecided={() => setTick((t) => t + 1)}
        />
      ))}
      {inbox?.truncated && <p class="muted">More are waiting than are shown.</p>}
    </section>
  );
}

function InboxEntry(props: { api: Api; item: InboxItem; mayDecide: boolean; onDecided: () => void }) {
  const { api, item, mayDecide, onDecided } = props;
  const [message, setMessage] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const decide = async (decision: 'approve' | 'deny') => {
    setBusy(true);
    setError(undefined);
    try {
      await decideToolCall(api, item, decision, { message });
      onDecided();
    } catch (err) {
      // A stale binding: the call was escalated (or replaced) since it was shown; the refresh shows it as it is now.
      setError(
        err instanceof ApiError && err.code === 'stale_binding' ? `${err.message} (refreshed)` : (err as Error).message,
      );
      if (err instanceof ApiError && err.status === 409) onDecided();
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="approval" data-testid="inbox-item" data-tool-call-id={item.toolCallId} data-run-id={item.runId}>
      <p>
        <strong>{item.agent}</strong> wants to call <code>{item.tool}</code>
        {item.reason ? ` — ${item.reason}` : ''}
      </p>
      <p class="muted">
        <a {...linkTo(runUrl(item.rootRunId))}>{item.rootRunId}</a>
        {item.depth > 0 && (
          <>
            {' '}
            → <a {...linkTo(runUrl(item.runId))}>nested run (depth {item.depth})</a>
          </>
        )}{' '}
        · asked {clock(item.askedAt)}
        <span data-testid="inbox-expiry">{expiryText(item)}</span>
      </p>
      <pre class="args">
        {item.argsPreview ? `${item.argsPreview} (${item.argsChars} characters)` : pretty(item.args ?? {})}
      </pre>
      <div class="row">
        <DecideButtons
          disabled={busy || !mayDecide}
          message={message}
          onMessage={setMessage}
          onDecide={(decision) => void decide(decision)}
        />
      </div>
      {error && (
        <p class="error" data-testid="inbox-error">
          {error}
        </p>
      )}
    </div>
  );
}

/** ` · escalated to lead… · expires 10:04, then denied` and the like: what happens to the call, and when. */
function expiryText(item: InboxItem): string {
  const parts = [
    ...(item.escalatedTo ? [`escalated to ${item.escalatedTo}: only that role decides it`] : []),
    ...(item.paused ? [`run paused${item.pauseReason ? ` (${item.pauseReason.replace(/_/g, ' ')})` : ''}`] : []),
    ...(item.expiresAt ? [`expires ${clock(item.expiresAt)}, then ${onExpiryWord[item.onExpiry ?? 'deny']}`] : []),
  ];
  return parts.map((p) => ` · ${p}`).join('');
}

const onExpiryWord = { deny: 'denied', escalate: 'escalated', pause: 'the run pauses' } as const;
