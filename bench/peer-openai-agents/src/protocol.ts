// What the PEER benchmark's processes and bench/peer*.ts (the root-side driver) exchange: the config a peer
// process reads from PEER_CONFIG, the peer workflow's input and output, and the JSON lines the subscriber
// process reads on stdin and prints on stdout. Types only and no imports, so both packages can use it.

/** The environment variable carrying a peer process's config. */
export const PEER_CONFIG_ENV = 'PEER_CONFIG';

/** What a peer process reads from PEER_CONFIG. */
export interface PeerConfig {
  role: 'worker' | 'subscriber';
  /** The bench's Temporal dev server. */
  address: string;
  /** The peer's own task queue (never the Agio worker's). */
  taskQueue: string;
  /** worker: the bench's scripted model server (`http://127.0.0.1:PORT/v1`). */
  modelBaseURL?: string;
}

/** What the peer worker prints after READY: where its Temporal packages were loaded from. */
export interface PeerReadyInfo {
  pid: number;
  versions: Record<string, string>;
  /** Resolved paths of the @temporalio packages (all inside bench/peer-openai-agents/node_modules). */
  resolved: Record<string, string>;
}

/** The workflow type the peer worker registers. */
export const PEER_WORKFLOW = 'peerAgentWorkflow';
/** The topic the peer's streaming model activity publishes to. */
export const PEER_TOPIC = 'events';
/** Batch interval of the peer's stream publisher (Agio batches its deltas every ≤ 100 ms too). */
export const PEER_BATCH_INTERVAL = '100ms';

/** Input of {@link PEER_WORKFLOW}. */
export interface PeerRunInput {
  /** The user message (the bench plan, `bench:{…}`). */
  input: string;
  maxTurns: number;
  /** `runner.run(agent, input, { stream: true })` with a hosted WorkflowStream, instead of the default run. */
  stream: boolean;
  /**
   * stream only: after the agent, publish `run_finished` and wait (≤ 60 s) for the {@link SUBSCRIBER_DONE_SIGNAL}
   * before returning. Without it a subscriber loses the last batch: once the workflow has completed, its
   * WorkflowStream (a log on the workflow heap, read by polling Updates) can no longer be read.
   */
  awaitSubscriber?: boolean;
}

/** Signal the subscriber sends once it has read `run_finished` (see {@link PeerRunInput.awaitSubscriber}). */
export const SUBSCRIBER_DONE_SIGNAL = 'benchSubscriberDone';

/** Output of {@link PEER_WORKFLOW}. */
export interface PeerRunOutput {
  finalOutput: string;
  /** Model calls the run made (`result.rawResponses.length`). */
  modelCalls: number;
}

/** stdin of the subscriber process: follow this workflow's stream. */
export interface SubscribeRequest {
  op: 'subscribe';
  workflowId: string;
  tag: string;
  /** Stop at `run_finished` and send {@link SUBSCRIBER_DONE_SIGNAL} (the run was started with `awaitSubscriber`). */
  signalDone: boolean;
}

/** stdout of the subscriber process, one JSON line each. */
export type SubscriberMessage =
  /** The first item arrived: the subscription is live (the driver lets the model answer). */
  | { op: 'open'; tag: string; at: number }
  /** The stream ended (the workflow completed): every text delta with its receive time (epoch ms). */
  | { op: 'done'; tag: string; items: number; deltas: [content: string, receivedAt: number][]; signalError?: string }
  | { op: 'error'; tag: string; message: string };
