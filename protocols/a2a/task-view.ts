// A2A's objects as Agio builds them (pure): parts, agent messages, statuses, the output artifact, and the status
// message of a task waiting for approvals (input-required), which says what a client may send to continue.
import { Role, TaskState, type Artifact, type Message, type Part, type Task, type TaskStatus } from '@a2a-js/sdk';
import type { PendingApproval } from '../../common/approval-inbox';

/** The id of the artifact holding a run's output. */
export const OUTPUT_ARTIFACT_ID = 'output';

/** A text part. */
export const textPart = (text: string): Part => ({
  content: { $case: 'text', value: text },
  metadata: undefined,
  filename: '',
  mediaType: 'text/plain',
});

/** A JSON data part. */
export const dataPart = (value: unknown): Part => ({
  content: { $case: 'data', value },
  metadata: undefined,
  filename: '',
  mediaType: 'application/json',
});

/** A message from the agent about a task (`id`: stable for the same fact, so repeats merge in the task's history). */
export function agentMessage(taskId: string, contextId: string, id: string, parts: Part[]): Message {
  return {
    messageId: id,
    taskId,
    contextId,
    role: Role.ROLE_AGENT,
    parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** A status now. */
export const statusOf = (state: TaskState, message?: Message): TaskStatus => ({
  state,
  message,
  timestamp: new Date().toISOString(),
});

/** The artifact of a run's output: its answer as text, and its structured output (agents with an output schema). */
export function outputArtifact(response: string, output?: unknown): Artifact {
  const parts = [textPart(response)];
  if (output !== undefined && typeof output !== 'string') parts.push(dataPart(output));
  return {
    artifactId: OUTPUT_ARTIFACT_ID,
    name: 'output',
    description: "The run's answer",
    parts,
    metadata: undefined,
    extensions: [],
  };
}

/** The approvals a task waits for, as its input-required message carries them (data part) and says them (text). */
export function approvalsMessage(taskId: string, contextId: string, pending: PendingApproval[]): Message {
  const calls = pending.map((p) => ({
    toolCallId: p.toolCallId,
    tool: p.tool,
    ...(p.args !== undefined ? { args: p.args } : p.argsPreview ? { argsPreview: p.argsPreview } : {}),
    ...(p.reason ? { reason: p.reason } : {}),
    ...(p.binding ? { binding: p.binding } : {}),
    ...(p.expiresAt ? { expiresAt: p.expiresAt } : {}),
  }));
  const names = calls.map((c) => `${c.tool} (${c.toolCallId})`).join(', ');
  const text =
    `Waiting for approval of ${names}. Continue this task with a message saying "approve" or "deny", ` +
    'or a data part {"decision": "approve" | "deny", "toolCallId"?: string, "message"?: string}.';
  const id = `${taskId}:approval:${calls.map((c) => c.toolCallId).join(',')}`;
  return agentMessage(taskId, contextId, id.slice(0, 512), [textPart(text), dataPart({ pendingApprovals: calls })]);
}

/** A task as a snapshot. */
export function taskOf(
  id: string,
  contextId: string,
  status: TaskStatus,
  artifacts: Artifact[],
  history: Message[],
): Task {
  return { id, contextId, status, artifacts, history, metadata: undefined };
}

/** Whether a state ends a task, or interrupts it until the client sends more. */
export const isTerminal = (s: TaskState | undefined): boolean =>
  s === TaskState.TASK_STATE_COMPLETED ||
  s === TaskState.TASK_STATE_FAILED ||
  s === TaskState.TASK_STATE_CANCELED ||
  s === TaskState.TASK_STATE_REJECTED;
