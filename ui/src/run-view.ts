// The shapes of the viewer's run tree: what run-tree.ts folds a stream into and the views render.
import type { AnyEventType, Step, Usage } from '../../common';

export type RunStatus = 'running' | 'completed' | 'failed' | 'cancelled';

/** A tool call of an assistant step, with its result once the tool step arrives. */
export interface ToolCallView {
  id: string;
  name: string;
  /** The model's raw JSON (still growing while the step streams). */
  arguments: string;
  status: 'streaming' | 'waiting_approval' | 'waiting_callback' | 'running' | 'done' | 'error' | 'denied';
  result?: string;
  /** The index of the step holding the result (where a fork replaces it). */
  resultStep?: number;
  /** A callback tool waiting for its outside result: when the wait ends with a timeout (epoch ms). */
  callbackExpiresAt?: number;
  /** The run this call started (an agent used as a tool). */
  childRunId?: string;
  /** Attempts the tool's activity needed beyond the first. */
  retries: number;
  durationMs?: number;
}

/** A step: committed (from its snapshot) or in flight (folded from its live deltas). */
export interface StepView {
  stepId: string;
  index: number;
  role: Step['role'];
  content: string;
  reasoning: string;
  toolCalls: ToolCallView[];
  /** Tool steps: the call this result answers, and the tool. */
  toolCallId?: string;
  name?: string;
  isError?: boolean;
  live: boolean;
  /** The model call's attempt the deltas come from (a retry discards the earlier attempt's text). */
  attempt: number;
  usage?: Usage;
  durationMs?: number;
  firstTokenMs?: number;
}

/** An approval a tool call waits for, or how it was decided. */
export interface ApprovalView {
  toolCallId: string;
  runId: string;
  agent: string;
  tool: string;
  args: unknown;
  reason: string;
  requestedAt: number;
  decision?: { outcome: 'granted' | 'denied'; by?: string; reason?: string; message?: string; remember?: boolean };
  /**
   * What a decision quotes to be bound to this call (runs since the approvals inbox), and the role it was escalated to.
   */
  binding?: string;
  escalatedTo?: string;
}

/** Something worth a line in a run's timeline that is not a step. */
export interface NoticeView {
  type: AnyEventType;
  at: number;
  text: string;
}

export interface RunView {
  runId: string;
  agent: string;
  depth: number;
  parentRunId?: string;
  /** Offset of its first event in the log (live deltas may show it earlier): where it sits among its siblings. */
  startOffset?: number;
  nestingType?: 'agent_tool' | 'workflow_agent';
  toolCallId?: string;
  status: RunStatus;
  paused: boolean;
  pauseReason?: string;
  startedAt?: number;
  endedAt?: number;
  input?: unknown;
  kind?: string;
  steps: StepView[];
  children: string[];
  /** Usage of this run's own model calls, and of its whole subtree (reported at its end, summed live before). */
  ownUsage: Usage;
  treeUsage?: Usage;
  /** A workflow agent's position: loop iteration, current sub-agent, parallel branches. */
  position?: { timesLooped?: number; currentSubAgent?: string; currentSubAgentIndex?: number; branches?: string[] };
  response?: string;
  output?: unknown;
  error?: string;
  terminationReason?: string;
  retries: number;
  notices: NoticeView[];
}

export interface RunTree {
  rootRunId?: string;
  runs: Record<string, RunView>;
  approvals: ApprovalView[];
  /** The last event's SSE id (`offset`, `offset.seq`, a tree cursor `offset~5:3…`): where a reconnect resumes. */
  lastEventId?: string;
  /** The last offset of the stream's own run's log (nested runs that keep their own logs have theirs in `logs`). */
  lastOffset: number;
  /** The last offset seen of each log (by the id of the run that owns it: the root, or a nested run with its own). */
  logs: Record<string, number>;
  /** The log of the stream's own run (the first one seen). */
  topLog?: string;
  lastSeq: number;
  /**
   * Durable events applied, and the lowest offset seen in the stream's own run's log (a continued-as-new log starts at
   * its tail).
   */
  durableEvents: number;
  firstOffset?: number;
  deltas: number;
  /**
   * Events dropped because the tree already had them (a resumed stream must make this 0), and offsets missing from a
   * log (those of the pointers to nested runs' own logs, which are not streamed, are not missing).
   */
  duplicates: number;
  gaps: number;
  /** Per log: offsets skipped minus pointers that explain them (see `gaps`). */
  unexplained: Record<string, number>;
  /** Pointers to nested runs' own logs the stream implied (two per such run that ended): offsets never streamed. */
  pointers: number;
  ended: boolean;
}
