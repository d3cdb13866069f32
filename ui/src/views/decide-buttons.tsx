// Approve and deny for one waiting tool call, as the run page and the approvals inbox both show them: the request,
// bound to the call shown by its binding, and the buttons with the message a denial tells the agent.
import { runPath, type Api } from '../api';

/** The call a decision is for: the run that asked, its call id, and the binding it was shown with. */
export interface DecidedCall {
  runId: string;
  toolCallId: string;
  binding?: string;
}

/** Approves or denies `call` (`remember` only with an approval; `message`, when not empty, only with a denial). */
export function decideToolCall(
  api: Api,
  call: DecidedCall,
  decision: 'approve' | 'deny',
  opts: { remember?: boolean; message?: string } = {},
): Promise<unknown> {
  const body = {
    ...(call.binding ? { binding: call.binding } : {}),
    ...(decision === 'approve'
      ? opts.remember !== undefined
        ? { remember: opts.remember }
        : {}
      : opts.message
        ? { message: opts.message }
        : {}),
  };
  return api.post(`${runPath(call.runId)}/tool-calls/${encodeURIComponent(call.toolCallId)}/${decision}`, body);
}

/** Approve, the message to the agent, and deny (off while a decision is on its way or the token may not decide). */
export function DecideButtons(props: {
  disabled: boolean;
  message: string;
  onMessage: (message: string) => void;
  onDecide: (decision: 'approve' | 'deny') => void;
}) {
  const { disabled, message, onMessage, onDecide } = props;
  return (
    <>
      <button data-testid="approve" disabled={disabled} onClick={() => onDecide('approve')}>
        Approve
      </button>
      <input
        data-testid="deny-message"
        placeholder="message to the agent (optional)"
        value={message}
        onInput={(e) => onMessage(e.currentTarget.value)}
      />
      <button class="danger" data-testid="deny" disabled={disabled} onClick={() => onDecide('deny')}>
        Deny
      </button>
    </>
  );
}
