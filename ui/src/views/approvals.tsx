// Tool calls waiting for a person: approve (optionally remembering this exact call for the rest of the run) or deny
// with a message.
import { useState } from 'preact/hooks';
import type { Api } from '../api';
import { pretty } from '../format';
import type { ApprovalView } from '../run-tree';
import { lacksScope, useRoles, useScope } from '../scopes';
import { DecideButtons, decideToolCall } from './decide-buttons';

export function Approvals({ api, approvals }: { api: Api; approvals: ApprovalView[] }) {
  const mayDecide = useScope(api, 'decide');
  const roles = useRoles(api);
  if (approvals.length === 0) return null;
  return (
    <section class="card approvals" data-testid="approvals">
      <h2>Waiting for approval ({approvals.length})</h2>
      {!mayDecide && (
        <p class="muted" data-testid="no-decide">
          You can see these calls but not decide them: {lacksScope('decide')}.
        </p>
      )}
      {approvals.map((a) => (
        <Approval
          key={`${a.runId} ${a.toolCallId}`}
          api={api}
          approval={a}
          // An escalated call is decided only by its role's tokens (the bridge refuses others with 403).
          mayDecide={mayDecide && (!a.escalatedTo || roles.includes(a.escalatedTo))}
        />
      ))}
    </section>
  );
}

function Approval({ api, approval, mayDecide }: { api: Api; approval: ApprovalView; mayDecide: boolean }) {
  const [remember, setRemember] = useState(false);
  const [message, setMessage] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const decide = async (decision: 'approve' | 'deny') => {
    setBusy(true);
    setError(undefined);
    try {
      await decideToolCall(api, approval, decision, { remember, message });
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="approval" data-testid="approval" data-tool-call-id={approval.toolCallId}>
      <p>
        <strong>{approval.agent}</strong> wants to call <code>{approval.tool}</code> — {approval.reason}
        {approval.escalatedTo && (
          <span class="muted" data-testid="escalated">
            {' '}
            (escalated to {approval.escalatedTo}: only that role decides it)
          </span>
        )}
      </p>
      <pre class="args">{pretty(approval.args)}</pre>
      <div class="row">
        <label>
          <input
            type="checkbox"
            data-testid="remember"
            checked={remember}
            onChange={(e) => setRemember(e.currentTarget.checked)}
          />{' '}
          <span data-testid="remember-scope">
            also allow this exact call (same tool, same arguments) for the rest of this run
          </span>
        </label>
        <DecideButtons
          disabled={busy || !mayDecide}
          message={message}
          onMessage={setMessage}
          onDecide={(decision) => void decide(decision)}
        />
      </div>
      {error && <p class="error">{error}</p>}
    </div>
  );
}
