// What an AG-UI client sends (RunAgentInput, AG-UI 1.0), checked: the protocol's fields bounded in size and count, the
// parts Agio reads typed (messages, resume entries), the rest carried opaquely. Untrusted: every request body is.
import { createHash } from 'node:crypto';
import { z } from 'zod';

/** Longest text of one message, and most messages a request may carry (the thread's whole history comes each time). */
const MAX_MESSAGE_CHARS = 256 * 1024;
const MAX_MESSAGES = 1000;

/** A message of the conversation: the roles Agio reads are checked, any other role is carried and ignored. */
const InputMessage = z
  .object({
    id: z.string().min(1).max(256),
    role: z.string().min(1).max(32),
    content: z
      .union([z.string().max(MAX_MESSAGE_CHARS), z.array(z.record(z.string(), z.unknown())).max(64)])
      .optional(),
    toolCallId: z.string().max(256).optional(),
    toolCalls: z
      .array(z.object({ id: z.string().max(256) }).passthrough())
      .max(128)
      .optional(),
    error: z.string().max(MAX_MESSAGE_CHARS).optional(),
  })
  .passthrough();
/** A message of an AG-UI conversation. */
export type InputMessage = z.infer<typeof InputMessage>;

/** An answer to one interrupt (AG-UI ResumeEntry). */
export const ResumeEntry = z
  .object({
    interruptId: z.string().min(1).max(4096),
    status: z.enum(['resolved', 'cancelled']),
    payload: z.unknown().optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();
/** An answer to one interrupt. */
export type ResumeEntry = z.infer<typeof ResumeEntry>;

/** A tool the frontend offers (carried: Agio runs its agents' own tools, see the route's description). */
const FrontendTool = z
  .object({ name: z.string().min(1).max(128), description: z.string().max(8192), parameters: z.unknown().optional() })
  .passthrough();

/** RunAgentInput as the bridge accepts it: threadId, runId and messages required, the rest optional. */
export const AgUiRunInput = z
  .object({
    threadId: z.string().min(1).max(256),
    runId: z.string().min(1).max(256),
    protocolVersion: z.string().max(32).optional(),
    parentRunId: z.string().max(256).optional(),
    state: z.unknown().optional(),
    messages: z.array(InputMessage).max(MAX_MESSAGES),
    tools: z.array(FrontendTool).max(128).optional(),
    context: z
      .array(z.object({ description: z.string().max(8192), value: z.string().max(65536) }))
      .max(64)
      .optional(),
    forwardedProps: z.unknown().optional(),
    resume: z.array(ResumeEntry).min(1).max(64).optional(),
  })
  .strict();
/** RunAgentInput as the bridge accepts it. */
export type AgUiRunInput = z.infer<typeof AgUiRunInput>;

/** The text of string-or-parts content: its text parts, in order (media is not read). */
export function textOf(content: InputMessage['content']): string {
  if (content === undefined) return '';
  if (typeof content === 'string') return content;
  return content
    .filter((p) => p.type === 'text' && typeof p.text === 'string')
    .map((p) => p.text as string)
    .join('');
}

/**
 * The new turn of the conversation: the user messages after the last message of any other role. Earlier turns are
 * the thread's session (Agio keeps it), so they are not sent again. Undefined when the input ends with no user message.
 */
export function newUserInput(input: AgUiRunInput): string | undefined {
  const turn: string[] = [];
  for (let i = input.messages.length - 1; i >= 0 && input.messages[i].role === 'user'; i--)
    turn.unshift(textOf(input.messages[i].content));
  const text = turn.filter((t) => t.length > 0).join('\n\n');
  return text.length ? text : undefined;
}

/** The input's `context` entries as text the agent reads before the user's turn (none: undefined). */
export function contextText(input: AgUiRunInput): string | undefined {
  if (!input.context?.length) return undefined;
  return input.context.map((c) => `${c.description}:\n${c.value}`).join('\n\n');
}

/** A client tool's answer: a `tool` message at the end of the input. */
export interface ToolAnswer {
  toolCallId: string;
  content: string;
  error?: string;
  /** The assistant message that made the call (Agio names it after the step: `<run id>:<index>`). */
  callMessageId?: string;
}

/** The tool messages the input ends with (answers to the client tool calls an AG-UI run ended with), in order. */
export function toolAnswersOf(input: AgUiRunInput): ToolAnswer[] {
  const answers: ToolAnswer[] = [];
  for (let i = input.messages.length - 1; i >= 0 && input.messages[i].role === 'tool'; i--) {
    const m = input.messages[i];
    if (!m.toolCallId) continue;
    const call = input.messages.find(
      (c) =>
        c.role === 'assistant' && (c.toolCalls as { id?: unknown }[] | undefined)?.some((t) => t.id === m.toolCallId),
    );
    answers.unshift({
      toolCallId: m.toolCallId,
      content: textOf(m.content),
      ...(m.error ? { error: m.error } : {}),
      ...(call ? { callMessageId: call.id } : {}),
    });
  }
  return answers;
}

/** The root run of the tree whose step a message id names (`<run id>:<index>`, maybe `~<attempt>`), if it names one. */
export function rootRunOfMessage(messageId: string): string | undefined {
  const step = messageId.replace(/~\d+$/, '');
  const colon = step.lastIndexOf(':');
  if (colon <= 0 || !/^\d+$/.test(step.slice(colon + 1))) return undefined;
  return step.slice(0, colon).split('/')[0];
}

const SESSION_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The Agio session of an AG-UI thread: the thread id itself when it is a valid session id, else a hash of it. */
export function sessionIdOf(threadId: string): string {
  if (SESSION_ID.test(threadId)) return threadId;
  return `agui-${createHash('sha256').update(threadId).digest('hex').slice(0, 40)}`;
}

const sha = (parts: string[]): string => createHash('sha256').update(JSON.stringify(parts)).digest('hex');

/**
 * What every Agio run id of an AG-UI thread begins with (a tenant's thread): visibility finds the thread's runs by it.
 */
export function threadRunPrefixOf(tenant: string, threadId: string): string {
  return `run-agui-${sha(['agio-ag-ui-thread', tenant, threadId]).slice(0, 16)}-`;
}

/** The Agio run id of an AG-UI run: the thread's prefix and a hash of tenant, thread and AG-UI run id. */
export function agioRunIdOf(tenant: string, threadId: string, runId: string): string {
  return threadRunPrefixOf(tenant, threadId) + sha(['agio-ag-ui-run', tenant, threadId, runId]).slice(0, 24);
}

/** The id runs started before the thread prefix had (`run-agui-<hash>`): the same request again still finds them. */
export function legacyAgioRunIdOf(tenant: string, threadId: string, runId: string): string {
  return `run-agui-${sha(['agio-ag-ui-run', tenant, threadId, runId]).slice(0, 32)}`;
}
