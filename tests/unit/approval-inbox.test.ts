// Pure parts of the approvals inbox: a call's binding, the expiry a rule gives an ask, the visibility query, and the
// CLI's text of an inbox.
import { approvalBinding, type Inbox } from '../../common';
import { expiryOf } from '../../workflows/lifecycle/approval-expiry';
import { inboxQuery } from '../../client/approval-inbox';
import { formatInbox, span } from '../../cli/approvals-command';

describe('approvalBinding', () => {
  const parts = ['run-1', 'exec-1', '1', 'call_0', 'bash', '{"command":"ls"}'];

  it('names one call in one round: any other part or round gives another binding', () => {
    const binding = approvalBinding(parts, 0);
    expect(binding).toMatch(/^[0-9a-f]{16}\.0$/);
    expect(approvalBinding([...parts], 0)).toBe(binding);
    expect(approvalBinding(parts, 1)).toBe(`${binding.slice(0, 16)}.1`);
    for (let i = 0; i < parts.length; i++) {
      const other = parts.map((p, j) => (j === i ? `${p}x` : p));
      expect(approvalBinding(other, 0)).not.toBe(binding);
    }
    // Parts are separated: moving a character from one part to the next is another call.
    expect(approvalBinding(['ab', 'c'], 0)).not.toBe(approvalBinding(['a', 'bc'], 0));
  });
});

describe('expiryOf', () => {
  it("takes the rule's expiry and action, else the agent's timeout and deny; an escalation without a role denies", () => {
    expect(expiryOf(undefined, 5000)).toEqual({ afterMs: 5000, action: 'deny' });
    expect(expiryOf({ tool: 'x', action: 'ask', expiresAfterMs: 1000, onExpiry: 'pause' }, 5000)).toEqual({
      afterMs: 1000,
      action: 'pause',
    });
    expect(expiryOf({ tool: 'x', action: 'ask', onExpiry: 'escalate', escalateTo: 'lead' }, 5000)).toEqual({
      afterMs: 5000,
      action: 'escalate',
      escalateTo: 'lead',
    });
    expect(expiryOf({ tool: 'x', action: 'ask', onExpiry: 'escalate' }, 5000)).toEqual({
      afterMs: 5000,
      action: 'deny',
    });
  });
});

describe('inboxQuery', () => {
  it("asks for the tenant's running runs waiting for approval (roots by AgioTenant, nested by AgioWaitingTenant)", () => {
    expect(inboxQuery({ tenant: "o'hara" })).toBe(
      "AgioWaiting = 'approval' AND ExecutionStatus = 'Running' AND " +
        "(AgioWaitingTenant = 'o\\'hara' OR AgioTenant = 'o\\'hara')",
    );
    expect(inboxQuery({ rootRunId: 'run-1' })).toContain("AND (WorkflowId = 'run-1' OR AgioRootRunId = 'run-1')");
  });
});

describe('formatInbox', () => {
  const now = Date.parse('2026-01-01T12:00:00Z');
  it('shows each call with its age, expiry and the command that decides it', () => {
    const inbox: Inbox = {
      dropped: 0,
      approvals: [
        {
          toolCallId: 'call_1',
          tool: 'bash',
          workflowId: 'run-1/tool/3-call_k',
          runId: 'run-1/tool/3-call_k',
          rootRunId: 'run-1',
          agent: 'coder',
          depth: 1,
          args: { command: 'rm -rf build' },
          reason: 'matches "rm *"',
          askedAt: '2026-01-01T11:55:00Z',
          expiresAt: '2026-01-01T13:00:00Z',
          onExpiry: 'escalate',
          binding: '0123456789abcdef.0',
        },
      ],
    };
    expect(formatInbox(inbox, now)).toBe(
      [
        'bash by coder (depth 1 of run-1), asked 5 min ago',
        '  run      run-1/tool/3-call_k',
        '  call     call_1',
        '  args     {"command":"rm -rf build"}',
        '  reason   matches "rm *"',
        '  expiry   escalate in 60 min',
        '  decide   agio approve|deny run-1/tool/3-call_k call_1 --binding 0123456789abcdef.0',
        '',
      ].join('\n'),
    );
    expect(formatInbox({ dropped: 2, approvals: [] }, now)).toBe('No tool call is waiting for a decision.\n');
    expect(span('2026-01-03T12:00:00Z', now)).toBe('2 d');
  });
});
