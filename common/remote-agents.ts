// Remote A2A agents used as tools (docs/ARCHITECTURE.md, "A2A"): how one is declared (in code or an agents file),
// and the inputs and outputs of the two activities a call runs under patch `agio-a2a-remote-agents`: one sends the
// message and returns the remote task (recorded in history), one follows that task to its end, heartbeating, so a
// worker restart resumes following the same task instead of sending the message again.
import { z } from 'zod';

/**
 * The patch under which a call of a remote agent tool sends once, then follows the remote task (asked only for such a
 * call).
 */
export const REMOTE_AGENTS_PATCH = 'agio-a2a-remote-agents';

/** Default time a remote agent has to finish a task (the tool's timeout). */
export const REMOTE_AGENT_TIMEOUT_MS = 10 * 60_000;

/** A remote A2A agent offered to agents as a tool. */
export const RemoteAgentConfig = z
  .object({
    /** The tool's name as agents list it and the model sees it. */
    name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'tool names are 1-64 letters, digits, _ or -'),
    description: z.string().min(1).max(8192),
    /** The agent card's URL (http(s)); its JSON-RPC interface is called. */
    cardUrl: z
      .string()
      .max(2048)
      .refine((u) => /^https?:\/\//i.test(u) && URL.canParse(u), 'cardUrl: an absolute http:// or https:// URL'),
    /** The environment variable holding the bearer token sent to the remote agent (never the token itself). */
    tokenEnv: z
      .string()
      .regex(/^[A-Z_][A-Z0-9_]{0,127}$/)
      .optional(),
    /** How long the remote task may take (default 10 minutes): past it the task is cancelled and the model told. */
    timeoutMs: z
      .number()
      .int()
      .min(1000)
      .max(7 * 24 * 3_600_000)
      .optional(),
    /** Let the card and the agent live on loopback or private addresses (development); refused by default. */
    allowPrivateAddresses: z.boolean().optional(),
  })
  .strict();
/** A remote A2A agent offered as a tool. */
export type RemoteAgentConfig = z.infer<typeof RemoteAgentConfig>;

/** A remote task a call follows. */
export interface RemoteTaskRef {
  taskId: string;
  contextId: string;
}

/** What a remote agent tool call ends with: the text the model reads. */
export interface RemoteToolResult {
  content: string;
  isError: boolean;
}

/** Input of sendRemoteMessage: the call (its id makes the message id, so every attempt sends the same message). */
export interface SendRemoteMessageInput {
  tool: string;
  runId: string;
  toolCallId: string;
  /** The model's arguments (JSON text). */
  arguments: string;
}

/** The remote task to follow, or the call's result when the remote agent answered at once (or refused). */
export type SendRemoteMessageOutput = { task: RemoteTaskRef } | { result: RemoteToolResult };

/** Input of followRemoteTask: the task and when the call gives up (epoch ms). */
export interface FollowRemoteTaskInput {
  tool: string;
  task: RemoteTaskRef;
  deadline: number;
}
