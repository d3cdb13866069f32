// Human approval of tool calls (docs/ARCHITECTURE.md, "Approvals"): rules decide allow / deny / ask; an `ask` publishes
// TOOL_AUTH_REQUIRED and waits durably (days, across worker restarts) for the decideToolCall update or a timeout.
import { ApplicationFailure, condition, patched, setHandler, workflowInfo } from '@temporalio/workflow';
import {
  INBOX_ARGS_CHARS,
  INBOX_ARGS_PREVIEW_CHARS,
  ToolCallDecision,
  approvalBinding,
  argumentsKey,
  decidePermission,
  type ApprovalsCarried,
  type PendingApproval,
  type PermissionRule,
  type RunContext,
  type ToolCall,
} from '../../common';
import { ErrorType } from '../../common/errors';
import { APPROVAL_INBOX_PATCH, expiryOf, waitWithExpiry } from './approval-expiry';
import type { RunControl } from './control';
import type { Emitter } from '../events/emitter';
import { decideToolCallUpdate } from '../../common/messages';

/** Whether a call may run; when not, the message the model sees. */
export type PermissionVerdict = { run: true } | { run: false; message: string };

interface Pending {
  tool: string;
  args: unknown;
  decision?: ToolCallDecision;
  /** What the state and the inbox show of it (kept in memory only: no command, so no patch needed to show it). */
  info: PendingApproval;
  /** The ask's number in this execution (part of its binding). */
  seq: number;
}

/**
 * `remember` allows the exact call again (same tool, same arguments) instead of every call of the tool (or of the
 * asking rule's pattern, which over shell text is no boundary: `git *` also matches `git status; curl x | sh`).
 */
export const REMEMBER_EXACT_CALL_PATCH = 'agio-remember-exact-call';

/** How many decided call ids continue-as-new carries. */
const CARRIED_DECISIONS = 500;

/** The permission rules and pending approvals of one run. */
export class Approvals {
  private readonly pending = new Map<string, Pending>();
  private readonly decided: Set<string>;
  private readonly remembered: PermissionRule[];
  /** Expiry actions, TOOL_AUTH_EXPIRED and bindings in events (see APPROVAL_INBOX_PATCH). */
  private readonly expiring: boolean;
  /** Asks made by this execution (part of each call's binding). */
  private asks = 0;

  constructor(
    private readonly events: Emitter,
    private readonly context: RunContext,
    private readonly agentRules: PermissionRule[],
    private readonly timeoutMs: number,
    /** Pause bookkeeping: a run waiting here for a person counts as parked when paused. */
    private readonly control?: RunControl,
    /** What the run carried across continue-as-new. */
    carried?: ApprovalsCarried,
  ) {
    this.remembered = [...(carried?.remembered ?? [])];
    this.decided = new Set(carried?.decided);
    this.expiring = patched(APPROVAL_INBOX_PATCH);
    setHandler(
      decideToolCallUpdate,
      (decision) => {
        this.pending.get(decision.toolCallId)!.decision = decision;
        return { toolCallId: decision.toolCallId, decision: decision.decision };
      },
      { validator: (raw) => this.validate(raw) },
    );
  }

  /** Checks a call against the rules, asking a human when a rule says so. */
  async check(call: ToolCall): Promise<PermissionVerdict> {
    let args: unknown = {};
    try {
      args = call.arguments.trim() ? JSON.parse(call.arguments) : {};
    } catch {
      return { run: true }; // malformed arguments never reach the tool: runTool answers with the parse error
    }
    const rules = [...this.remembered, ...(this.context.permissions ?? []), ...this.agentRules];
    const { action, rule } = decidePermission(rules, call.name, args);
    const about = {
      toolCallId: call.id,
      tool: call.name,
      workflowId: workflowInfo().workflowId,
      runId: this.context.runId,
    };
    if (action === 'allow') return { run: true };
    if (action === 'deny') {
      await this.events.emit({ type: 'TOOL_AUTH_DENIED', data: { ...about, reason: 'rule', rule } });
      return {
        run: false,
        message: `Error: calling "${call.name}" with these arguments is not permitted${rule?.pattern ? ` (rule: ${rule.pattern})` : ''}.`,
      };
    }
    const reason = rule?.pattern ? `matches "${rule.pattern}"` : `"${call.name}" requires approval`;
    const seq = ++this.asks;
    const entry: Pending = { tool: call.name, args, seq, info: this.describe(call, args, reason, rule, seq) };
    this.pending.set(call.id, entry);
    const expiry = this.expiring ? expiryOf(rule, this.timeoutMs) : undefined;
    await this.events.emit({
      type: 'TOOL_AUTH_REQUIRED',
      data: {
        ...about,
        args,
        reason,
        ...(expiry
          ? { binding: entry.info.binding, expiresAt: Date.now() + expiry.afterMs, onExpiry: expiry.action }
          : {}),
      },
    });
    // Waiting for a person holds nothing, so a paused run waiting here is parked; one approved while paused records
    // the decision at once and runs the tool only after resume.
    const ask = this.ask(call, entry, rule, about, expiry);
    return this.control ? this.control.waitForPerson(ask) : ask;
  }

  /** Waits for the decision (or the timeout) on a call that asked, and turns it into a verdict. */
  private async ask(
    call: ToolCall,
    entry: Pending,
    rule: PermissionRule | undefined,
    about: Record<string, string>,
    expiry?: ReturnType<typeof expiryOf>,
  ): Promise<PermissionVerdict> {
    const decided = () => entry.decision !== undefined;
    if (!expiry) await condition(decided, this.timeoutMs);
    else
      await waitWithExpiry(expiry, {
        info: entry.info,
        decided,
        expired: (data) => this.events.emit({ type: 'TOOL_AUTH_EXPIRED', data: { ...about, ...data } }),
        rebind: (round) => this.bindingOf(call, entry, round),
        pause: () => this.control?.pauseForApproval(),
        escalatedWaitMs: this.timeoutMs,
      });
    this.pending.delete(call.id);
    this.decided.add(call.id);
    // A decision the update accepted counts even if the timer fired in the same workflow task: its caller was told so.
    const decision = entry.decision;
    if (!decision) {
      // What the rules gave it: the first expiry, and the escalated wait after it.
      const waited = expiry ? expiry.afterMs + (entry.info.escalatedTo ? this.timeoutMs : 0) : this.timeoutMs;
      await this.events.emit({ type: 'TOOL_AUTH_DENIED', data: { ...about, reason: 'timeout' } });
      return {
        run: false,
        message: `Error: "${call.name}" was not approved within ${describeDuration(waited)} (reason: timeout).`,
      };
    }
    const by = decision.by ?? 'operator';
    if (decision.decision === 'approve') {
      // Asked only when a decision remembers, before anything this task emits.
      const exact = decision.remember === true && patched(REMEMBER_EXACT_CALL_PATCH);
      if (decision.remember)
        this.remembered.unshift({
          tool: call.name,
          ...(exact ? { arguments: argumentsKey(entry.args) } : rule?.pattern ? { pattern: rule.pattern } : {}),
          action: 'allow',
        });
      await this.events.emit({
        type: 'TOOL_AUTH_GRANTED',
        data: { ...about, by, remember: decision.remember ?? false, ...(exact ? { remembered: 'exact_call' } : {}) },
      });
      await this.control?.waitWhilePaused();
      return { run: true };
    }
    await this.events.emit({
      type: 'TOOL_AUTH_DENIED',
      data: { ...about, by, reason: 'denied', ...(decision.message ? { message: decision.message } : {}) },
    });
    return {
      run: false,
      message: `Error: the call to "${call.name}" was denied by ${by}${decision.message ? `: ${decision.message}` : '.'}`,
    };
  }

  /**
   * What continue-as-new carries: every remembered rule, and the ids of the latest decided calls (so a late second
   * decision on one of them is still refused; older ids are long out of any client's hands).
   */
  carried(): ApprovalsCarried {
    return { remembered: [...this.remembered], decided: [...this.decided].slice(-CARRIED_DECISIONS) };
  }

  /** Calls waiting for a decision (for the state query and the inbox; arguments over INBOX_ARGS_CHARS previewed). */
  list(): PendingApproval[] {
    return [...this.pending.values()]
      .filter((p) => !p.decision)
      .map((p) => {
        const json = argumentsKey(p.args);
        const args =
          json.length <= INBOX_ARGS_CHARS
            ? { args: p.args }
            : { argsPreview: `${json.slice(0, INBOX_ARGS_PREVIEW_CHARS)}…`, argsChars: json.length };
        return { ...p.info, ...args };
      });
  }

  /** What the state shows of a call that asks (no command: the same for runs of every release). */
  private describe(
    call: ToolCall,
    args: unknown,
    reason: string,
    rule: PermissionRule | undefined,
    seq: number,
  ): PendingApproval {
    const info: PendingApproval = {
      toolCallId: call.id,
      tool: call.name,
      workflowId: workflowInfo().workflowId,
      rootRunId: this.context.rootRunId,
      depth: this.context.depth,
      reason,
      ...(rule ? { rule } : {}),
      askedAt: new Date(Date.now()).toISOString(),
    };
    info.binding = this.bindingOf(call, { args, seq }, 0);
    return info;
  }

  /** The binding of a call in escalation round `round` (see approvalBinding). */
  private bindingOf(call: ToolCall, entry: Pick<Pending, 'args' | 'seq'>, round: number): string {
    const { workflowId, runId } = workflowInfo();
    return approvalBinding([workflowId, runId, String(entry.seq), call.id, call.name, argumentsKey(entry.args)], round);
  }

  /** Synchronous (an async validator's rejection would be ignored): unknown and already-decided calls are refused. */
  private validate(raw: ToolCallDecision): void {
    const parsed = ToolCallDecision.safeParse(raw);
    if (!parsed.success)
      throw new Error(
        `invalid decision: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
      );
    const id = parsed.data.toolCallId;
    // Pending first: a model may reuse a call id in a later turn, and that new call must still be decidable.
    const waiting = this.pending.get(id);
    if (waiting?.decision || (!waiting && this.decided.has(id)))
      throw new Error(`tool call "${id}" has already been decided`);
    if (!waiting) throw new Error(`no tool call "${id}" is waiting for approval in this run`);
    const { escalatedTo, binding } = waiting.info;
    if (escalatedTo && !parsed.data.roles?.includes(escalatedTo))
      throw ApplicationFailure.create({
        type: ErrorType.ApprovalEscalated,
        nonRetryable: true,
        message: `tool call "${id}" was escalated to role "${escalatedTo}": only a decider with that role may decide it`,
      });
    const quoted = parsed.data.binding;
    if (quoted !== binding && (quoted !== undefined || escalatedTo))
      throw ApplicationFailure.create({
        type: ErrorType.StaleApproval,
        nonRetryable: true,
        message:
          quoted === undefined
            ? `tool call "${id}" was escalated: quote its current binding (read it again from the inbox)`
            : `tool call "${id}" is no longer the call that binding names (it was escalated, or it is another call): read it again from the inbox`,
      });
  }
}

/** A timeout as people say it: `1.5 s`, `10 min`, `24 h`. */
function describeDuration(ms: number): string {
  const round = (n: number) => String(Math.round(n * 10) / 10);
  if (ms < 60_000) return `${round(ms / 1000)} s`;
  if (ms < 3_600_000) return `${round(ms / 60_000)} min`;
  return `${round(ms / 3_600_000)} h`;
}
