// createWorker(): one Temporal worker that runs Agio's workflows and activities on a task queue.
import type { Duration, PayloadCodec, WorkerDeploymentVersion } from '@temporalio/common';
import { NativeConnection, Worker, type InjectedSinks, type WorkerOptions } from '@temporalio/worker';
import fs from 'node:fs';
import path from 'node:path';
import { AgentRegistry, DEFAULT_TASK_QUEUE, type AnyAgentSpec, type WireSinks } from '../common';
import { createActivities, type ActivityDeps } from '../activities';
import { notify, type RunObserver } from '../activities/observer';
import { AgentHealth, healthcheckedSubAgents } from '../activities/healthcheck';
import type { ModelConfig, StepStreamSinkFactory } from '../activities/model/call-model';
import type { ToolDefinition } from '../activities/tools/define-tool';
import { builtinTools } from '../activities/tools/builtin';
import { bashNetworkTool } from '../activities/tools/bash';
import type { LiveLane } from '../live/lane';
import { DEFAULT_DELTA_BUDGET, type DeltaBudget } from '../activities/model/wire-step-sink';
import { ToolRegistry } from '../activities/tools/registry';
import { createGetToolResultTool } from '../activities/tools/get-tool-result';
import type { McpServerConfigInput } from '../activities/tools/mcp/config';
import { startMcpServers, type McpTools } from '../activities/tools/mcp/servers';
import { bundleWorkflows } from './workflow-bundle-options';
import { prebuiltWorkflowCode } from './prebuilt-bundle';
import { buildIdOf, makeVersionCurrent, versionName, type VersioningOptions } from './versioning';
import type { Promotion } from './deployment-versions';
import { registerSearchAttributes } from '../config/temporal';
import { dataConverterOption } from '../config/codec-keys';
import { createMemoryStores, DEFAULT_WORKSPACE_QUOTA, type Stores, type WorkspaceQuota } from '../stores';
import { WorkspaceSync } from '../activities/workspace/workspace-sync';
import { describeSandbox, detectSandbox } from '../activities/sandbox/detect';
import type { CallbackOptions } from '../activities/callbacks/start-callback';
import type { Sandbox } from '../activities/sandbox/sandbox';
import { createWebhookActivities } from '../activities/webhooks/deliver';
import { createBulkRedriveActivities } from './bulk-activities';
import { webhookSettings, type WebhookOptions } from '../activities/webhooks/settings';
import { WebhookSink, attachWebhookWorker } from './webhook-worker';

/** Options of {@link createWorker}. */
export interface CreateWorkerOptions {
  connection: NativeConnection;
  namespace?: string;
  taskQueue?: string;
  /**
   * Agents the worker knows by name: a run started by name (`AgioClient.start('name', …)` with a client that does not
   * hold the spec) gets its spec from here, recorded in its history; a name not here fails the run with UnknownAgent.
   */
  agents?: AnyAgentSpec[];
  /** Extra tools; the built-in tools are always registered unless `builtinTools: false` (get_tool_result always is). */
  tools?: ToolDefinition[];
  builtinTools?: boolean;
  /**
   * MCP servers whose tools the worker offers as `<server>__<tool>` (and all of a server's as `mcp:<server>`); they are
   * connected and listed now, and a server that cannot start fails createWorker (docs/MCP.md). Close them with
   * `close()`.
   */
  mcpServers?: McpServerConfigInput[];
  model: ModelConfig;
  /** Directory under which runs get their workspaces (default `.agio/workspaces`). */
  workspaceRoot?: string;
  /**
   * Where a run's workspace lives between tools (default `store`): `store` keeps it in `stores.workspaces` and brings
   * it to whichever worker runs the next tool, so workers hold no run state of their own; `off` leaves it in this
   * worker's `workspaceRoot` only, for a single worker or workers that all mount one shared volume there.
   */
  workspaceSync?: 'store' | 'off';
  /**
   * Where bash, grep and glob run their programs (default: bubblewrap, probed once now; without it they refuse, unless
   * AGIO_UNSAFE_NO_SANDBOX=1). The README's "Security" says what it stops.
   */
  sandbox?: Sandbox;
  /**
   * Also offer `bash_network`, bash with the worker's whole network (default: AGIO_SANDBOX_NETWORK_TOOL=1). Agents that
   * list it reach anything the worker can, loopback included; agents with plain `bash` stay without network.
   */
  networkTool?: boolean;
  /** The most a run's workspace may hold when kept in the store (default 256 MiB in 10,000 files). */
  workspaceQuota?: Partial<WorkspaceQuota>;
  streamSink?: StepStreamSinkFactory;
  /**
   * The live lane model deltas go to (`agio serve`: in process, shared with its bridge); without one they are batched
   * into the root's Wire.
   */
  liveLane?: LiveLane;
  /**
   * Without a live lane, deltas are signals into the root run's Wire: batched more coarsely as the root's history
   * fills, and stopped (never the run) once it reaches `maxHistoryEvents` (default 8,000), well before Temporal's
   * 10,000 signals per execution.
   */
  deltaBudget?: Partial<DeltaBudget>;
  /**
   * A prebuilt workflow bundle (tests build one for the whole run); otherwise the package's own
   * (dist/workflow-bundle.js), or workflows/ bundled at start.
   */
  workflowBundle?: WorkerOptions['workflowBundle'];
  /** Where sessions, steps, traces, citations and full tool outputs go (default: in memory). */
  stores?: Stores;
  /** What every model and tool call reports when it ends: the worker's metrics and traces plug in here. */
  observers?: RunObserver[];
  /** Extra activities (test fixtures). */
  extraActivities?: Record<string, (...args: never[]) => Promise<unknown>>;
  /**
   * How long a worker told to stop (SIGTERM, a deploy) lets in-flight model calls and tools finish before it cancels
   * them (default {@link DEFAULT_SHUTDOWN_GRACE_TIME}). The SDK's own default is 0: every deploy would cut every
   * model stream and tool, and their retries would pay again.
   */
  shutdownGraceTime?: Duration;
  /**
   * Worker Deployment Versioning (default: on). The worker polls as one version of its deployment; runs are pinned to
   * the version they start on and move to the current version when they next continue as new (docs/ARCHITECTURE.md,
   * "Long-lived runs"). `false`: an unversioned worker, for a Temporal server without worker deployments (before 1.28).
   */
  versioning?: VersioningOptions | false;
  /**
   * Registers the search attributes runs are started with (AgioTenant, AgioAgent, AgioRootRunId) in the namespace when
   * it lacks them, or fails naming the command that would (default true; false: the operator has registered them).
   */
  searchAttributes?: boolean;
  /**
   * Encrypts what runs put in Temporal history (inputs, results, activity arguments, signals, memos): every worker and
   * client of the namespace needs the same codec (`payloadCodecFromEnv`, AGIO_CODEC_KEYS). Default: none.
   */
  payloadCodec?: PayloadCodec;
  /**
   * Callback tools' URLs (activities/callbacks/): the secret the fleet's bridges check them with (AGIO_CALLBACK_SECRET)
   * and the bridges' base URL (AGIO_CALLBACK_BASE_URL). Required when a callback tool is registered.
   */
  callbacks?: CallbackOptions;
  /** Passed through to Worker.create (concurrency, …); wins over the options above. */
  workerOptions?: Partial<WorkerOptions>;
  /** How webhooks are delivered (retry window, backoff, timeout, private addresses); unset ones: AGIO_WEBHOOK_*. */
  webhooks?: WebhookOptions;
}

/** Default of {@link CreateWorkerOptions.shutdownGraceTime}: a model step or a tool usually ends well within it. */
export const DEFAULT_SHUTDOWN_GRACE_TIME = '30s';

/** A created worker with the registries it serves. */
export interface AgioWorker {
  worker: Worker;
  agents: AgentRegistry;
  tools: ToolRegistry;
  taskQueue: string;
  stores: Stores;
  /** The version this worker polls as (absent when unversioned). */
  version?: WorkerDeploymentVersion;
  /** What making itself current did (when told to: `versioning.makeCurrent`); rejects when refused (an older build). */
  current?: Promise<Promotion>;
  /**
   * Closes the worker's MCP connections and ends their processes (call it once `worker.run()` has returned);
   * idempotent.
   */
  close(): Promise<void>;
}

/** Creates (but does not run) a worker; call `worker.run()` to start polling, and `close()` after it has stopped. */
export async function createWorker(opts: CreateWorkerOptions): Promise<AgioWorker> {
  // MCP servers first: one that cannot start fails the worker early; anything failing later closes them again.
  const mcp = await startMcpServers(opts.mcpServers ?? []);
  try {
    return { ...(await createWithTools(opts, mcp)), close: mcp.close };
  } catch (err) {
    await mcp.close();
    throw err;
  }
}

async function createWithTools(opts: CreateWorkerOptions, mcp: McpTools): Promise<Omit<AgioWorker, 'close'>> {
  const stores = opts.stores ?? createMemoryStores();
  // get_tool_result goes with the stores, not with the built-in tools: every worker truncates large outputs and
  // points the model at it (a tool of the caller's own by that name replaces it).
  const extra = opts.tools ?? [];
  const getToolResult = extra.some((t) => t.name === 'get_tool_result')
    ? []
    : [createGetToolResultTool(stores.toolResults)];
  const tools = new ToolRegistry([
    ...(opts.builtinTools === false ? [] : builtinTools),
    ...((opts.networkTool ?? process.env.AGIO_SANDBOX_NETWORK_TOOL === '1') ? [bashNetworkTool] : []),
    ...getToolResult,
    ...extra,
    ...mcp.tools,
  ]);
  for (const group of mcp.groups) tools.registerGroup(group.name, group.tools);
  const callbackTools = tools.names().filter((n) => tools.find(n)?.callback);
  if (callbackTools.length && !opts.callbacks)
    throw new Error(
      `callback tools (${callbackTools.join(', ')}) need a callback secret and base URL: set AGIO_CALLBACK_SECRET and AGIO_CALLBACK_BASE_URL (or createWorker's \`callbacks\`)`,
    );
  const agents = new AgentRegistry(opts.agents ?? []);
  // A misspelled tool name fails here, naming the agent and what the worker has, rather than vanishing from its tools.
  tools.checkAgents(agents.list());
  await stores.setup();
  const workspaceRoot = path.resolve(opts.workspaceRoot ?? '.agio/workspaces');
  // Runs' files are the worker user's alone, whatever the process's umask (an existing root is tightened too).
  await fs.promises.mkdir(workspaceRoot, { recursive: true, mode: 0o700 });
  await fs.promises.chmod(workspaceRoot, 0o700);
  const sandbox = opts.sandbox ?? (await detectSandbox({ workspaceRoot }));
  const said = describeSandbox(sandbox);
  if (said.level === 'error') console.error(said.message);
  // Sub-agents with `healthcheck: true` are checked now; failures are logged and they are not offered later.
  const health = new AgentHealth(tools, opts.model);
  await Promise.all(healthcheckedSubAgents(agents.list()).map((agent) => health.check(agent)));
  const deps: ActivityDeps = {
    model: opts.model,
    tools,
    workspaceRoot,
    streamSink: opts.streamSink,
    liveLane: opts.liveLane,
    deltaBudget: { ...DEFAULT_DELTA_BUDGET, ...opts.deltaBudget },
    health,
    stores,
    sandbox,
    agents,
    observers: opts.observers ?? [],
    ...(opts.callbacks ? { callbacks: opts.callbacks } : {}),
    ...(opts.workspaceSync === 'off'
      ? {}
      : {
          workspaceSync: new WorkspaceSync(stores.workspaces, workspaceRoot, {
            ...DEFAULT_WORKSPACE_QUOTA,
            ...opts.workspaceQuota,
          }),
        }),
  };
  const taskQueue = opts.taskQueue ?? DEFAULT_TASK_QUEUE;
  const hooks = webhookSettings(taskQueue, opts.webhooks);
  const webhookSink = new WebhookSink(stores.webhooks);
  const namespace = opts.namespace ?? 'default';
  // A namespace without Agio's search attributes refuses every run's start (a plain `temporal server start-dev`): they
  // are registered now, or the worker fails at start naming the command that registers them.
  if (opts.searchAttributes !== false) await registerSearchAttributes(opts.connection, namespace, 'agio worker');
  // Bundled here (not by Worker.create) so the build id can be derived from the very code the worker runs.
  const code = await workflowCode(opts.workflowBundle);
  const versioning = opts.versioning === false ? undefined : (opts.versioning ?? {});
  const version = versioning && {
    deploymentName: versioning.deploymentName ?? taskQueue,
    buildId: versioning.buildId ?? buildIdOf(code),
  };
  const worker = await Worker.create({
    connection: opts.connection,
    namespace,
    taskQueue,
    workflowBundle: { code },
    // Pinned (by default): a run finishes on the code it started on; it moves to a newer version only at
    // continue-as-new.
    ...(version
      ? {
          workerDeploymentOptions: {
            useWorkerVersioning: true,
            version,
            defaultVersioningBehavior:
              versioning?.behavior === 'auto_upgrade' ? ('AUTO_UPGRADE' as const) : ('PINNED' as const),
          },
        }
      : {}),
    activities: {
      ...createActivities(deps),
      webhookDeliverySettings: createWebhookActivities(stores.webhooks, hooks).webhookDeliverySettings,
      // A bulk retry starts each retry from the steps these stores recorded (client/run-rescue.ts).
      ...createBulkRedriveActivities({ steps: stores.sessions }),
      ...opts.extraActivities,
    },
    sinks: wireSinks(opts.liveLane, opts.observers ?? [], webhookSink),
    shutdownGraceTime: opts.shutdownGraceTime ?? DEFAULT_SHUTDOWN_GRACE_TIME,
    // A cancellation reaches an activity only in the answer to a heartbeat, and the SDK would hold heartbeats back for
    // up to 0.8 × heartbeatTimeout. With this cap each activity's own cadence decides: a model call beats every 4 s at
    // most (activities/model/call-model.ts, heartbeatIntervalMs), so a cancel reaches it within about that long.
    maxHeartbeatThrottleInterval: '1s',
    // Codecs run in the worker, outside the workflow sandbox: the workflow code sees decoded payloads.
    ...dataConverterOption(opts.payloadCodec),
    ...opts.workerOptions,
  });
  await attachWebhookWorker(worker, {
    connection: opts.connection,
    namespace,
    settings: hooks,
    store: stores.webhooks,
    sink: webhookSink,
    workerOptions: { ...dataConverterOption(opts.payloadCodec), shutdownGraceTime: worker.options.shutdownGraceTime },
  });
  let current: Promise<Promotion> | undefined;
  const makeCurrent = versioning?.makeCurrent ?? 'first';
  if (version && makeCurrent !== false) {
    const polling = () => ['INITIALIZED', 'RUNNING'].includes(worker.getState());
    current = makeVersionCurrent(opts.connection, namespace, version, makeCurrent, { stillWanted: polling });
    current.then(
      (done) => {
        if (!done.changed && done.previous !== version.buildId)
          console.log(`agio worker: ${versionName(version)} polls; promote it with \`agio versions promote\``);
      },
      (err: Error) => {
        if (polling()) console.error(`agio worker: ${versionName(version)} not made current: ${err.message}`);
      },
    );
  }
  return { worker, agents, tools, taskQueue, stores, ...(version ? { version } : {}), ...(current ? { current } : {}) };
}

/**
 * The events a root appends to its Wire go to the live lane as its activation ends, for bridges to follow instead of
 * polling (docs/ARCHITECTURE.md, "The Wire"); without a lane, bridges poll the events Query.
 */
function wireSinks(
  lane: LiveLane | undefined,
  observers: readonly RunObserver[],
  webhooks: WebhookSink,
): InjectedSinks<WireSinks> {
  return {
    wire: {
      appended: {
        fn: (info, events) => {
          lane?.publishEvents(info.workflowId, events);
          // The worker's run metrics (paused runs, waiting approvals, steps) follow the runs' own events.
          notify(observers, 'runEvents', events, { workflowId: info.workflowId, startedAt: info.startTime.getTime() });
          void webhooks.appended(info, events);
        },
        callDuringReplay: false,
      },
    },
  };
}

/** The workflow bundle's code: the one given, else the package's prebuilt one (dist/), else workflows/ bundled now. */
async function workflowCode(bundle: WorkerOptions['workflowBundle']): Promise<string> {
  if (!bundle) return prebuiltWorkflowCode() ?? bundleWorkflows();
  return 'code' in bundle ? bundle.code : fs.promises.readFile(bundle.codePath, 'utf8');
}
