// Tool permissions (docs/ARCHITECTURE.md, "Approvals"): rules per tool with optional argument patterns decide `allow`,
// `deny` or `ask`. Pure and deterministic, so workflow code evaluates them.
import { z } from 'zod';

/**
 * One rule: for `tool` — a name, or a glob over names such as `*` or `fs__*` (an MCP server's tools) — when the call's
 * subject matches `pattern` (glob; absent = any), do `action`.
 */
export const PermissionRule = z.object({
  tool: z.string().min(1),
  pattern: z.string().optional(),
  /**
   * Only a call whose arguments are exactly these (the JSON of the parsed arguments): what `remember` on an approval
   * records, so it allows that very call again and nothing wider.
   */
  arguments: z.string().optional(),
  action: z.enum(['allow', 'deny', 'ask']),
  /** `ask` only: how long the call waits for a person before `onExpiry` (default: the agent's approvalTimeoutMs). */
  expiresAfterMs: z.number().int().positive().optional(),
  /**
   * `ask` only: what happens when nobody decided in time (runs since patch `agio-approval-inbox`): `deny` (the
   * default), `escalate` (the call keeps waiting, now decidable only by tokens with role `escalateTo`, for the agent's
   * approvalTimeoutMs, then denied), or `pause` (the run pauses with reason `approval_expired`; the call keeps
   * waiting).
   */
  onExpiry: z.enum(['deny', 'escalate', 'pause']).optional(),
  /** `onExpiry: 'escalate'`: the role the call is escalated to (see AGIO_TOKENS' roles). */
  escalateTo: z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,64}$/, 'escalateTo: a role name, 1-64 letters, digits, . _ -')
    .optional(),
});
/** One permission rule. */
export type PermissionRule = z.infer<typeof PermissionRule>;
/** What a rule decides. */
export type PermissionAction = PermissionRule['action'];

/** Rules that make risky built-in tools ask first (the example agents use these). */
export const ASK_FOR_RISKY_TOOLS: PermissionRule[] = [
  { tool: 'bash', action: 'ask' },
  { tool: 'file_write', action: 'ask' },
  { tool: 'file_edit', action: 'ask' },
];

/** What a pattern is matched against: the command for `bash`, the path for file tools, else the JSON arguments. */
export function permissionSubject(tool: string, args: unknown): string {
  const a = (args ?? {}) as Record<string, unknown>;
  if (tool === 'bash' && typeof a.command === 'string') return a.command.trim();
  if (typeof a.path === 'string') return a.path;
  if (typeof a.url === 'string') return a.url;
  return JSON.stringify(args ?? {});
}

/**
 * Whether `text` matches `glob` as a whole: `*` any run of characters (newlines too), `?` one character (one UTF-16
 * unit), everything else literal. Iterative, going back only to the last `*`: time at most globs × text length,
 * whatever the glob (a RegExp built from `a*a*a*…b` backtracks exponentially, and this runs in workflow code).
 */
export function globMatches(glob: string, text: string): boolean {
  let g = 0;
  let t = 0;
  let star = -1;
  let resume = 0;
  while (t < text.length) {
    if (g < glob.length && (glob[g] === '?' || (glob[g] !== '*' && glob[g] === text[t]))) {
      g++;
      t++;
    } else if (g < glob.length && glob[g] === '*') {
      star = g++;
      resume = t;
    } else if (star >= 0) {
      g = star + 1;
      t = ++resume;
    } else {
      return false;
    }
  }
  while (g < glob.length && glob[g] === '*') g++;
  return g === glob.length;
}

/** Whether a rule's `tool` names this tool: the same name, or a glob (`*`, `?`) matching it. */
export function ruleNamesTool(ruleTool: string, tool: string): boolean {
  if (ruleTool === tool) return true;
  return /[*?]/.test(ruleTool) && globMatches(ruleTool, tool);
}

/** The JSON a rule's `arguments` is compared with. */
export const argumentsKey = (args: unknown): string => JSON.stringify(args ?? {});

function matches(rule: PermissionRule, tool: string, subject: string, args: unknown): boolean {
  if (!ruleNamesTool(rule.tool, tool)) return false;
  if (rule.arguments !== undefined && rule.arguments !== argumentsKey(args)) return false;
  return rule.pattern === undefined || globMatches(rule.pattern, subject);
}

/**
 * Decides a call. A matching `deny` always wins (remembered approvals cannot lift it); otherwise the first
 * matching rule in order (remembered allows first, then per-run rules, then the agent's); no match = allow.
 */
export function decidePermission(
  rules: PermissionRule[],
  tool: string,
  args: unknown,
): { action: PermissionAction; rule?: PermissionRule } {
  const subject = permissionSubject(tool, args);
  const deny = rules.find((r) => r.action === 'deny' && matches(r, tool, subject, args));
  if (deny) return { action: 'deny', rule: deny };
  const rule = rules.find((r) => matches(r, tool, subject, args));
  return rule ? { action: rule.action, rule } : { action: 'allow' };
}

/** A human decision on a tool call (the `decideToolCall` update's argument). */
export const ToolCallDecision = z.object({
  toolCallId: z.string().min(1),
  decision: z.enum(['approve', 'deny']),
  /** Shown to the model with a denial. */
  message: z.string().max(4000).optional(),
  /**
   * Approve this exact call (the same tool with the same arguments) for the rest of the run; runs started before
   * patch `agio-remember-exact-call` remember the tool (and the asking rule's pattern).
   */
  remember: z.boolean().optional(),
  by: z.string().max(200).optional(),
  /**
   * The binding of the call as the approver saw it (the inbox's `binding`): refused when the call waiting now has
   * another (it was escalated since, or it is another call). Required once a call has been escalated.
   */
  binding: z.string().max(100).optional(),
  /** The decider's roles (the bridge sets them from the token): an escalated call takes only its role's decisions. */
  roles: z.array(z.string().max(64)).max(32).optional(),
});
/** A human decision on a tool call. */
export type ToolCallDecision = z.infer<typeof ToolCallDecision>;
