// The runTool activity: looks a tool up, validates the model's arguments with zod, runs it in the run's
// workspace and returns a result for the model. Anything the model got wrong becomes an error result.
import { ApplicationFailure, Context } from '@temporalio/activity';
import { z } from 'zod';
import { ErrorType, logOwnerOf, type EventBase } from '../common';
import { WorkspaceQuotaExceededError, type Stores } from '../stores';
import type { AgentHealth } from './healthcheck';
import type { ToolOutput } from './tools/define-tool';
import type { ToolRegistry } from './tools/registry';
import { ensureWorkspace, resolveWorkspaceDir } from './tools/workspace';
import { activityPublisher } from './publish';
import { finishWorkspace, type WorkspaceSession, type WorkspaceSync } from './workspace/workspace-sync';
import { SandboxUnavailableError, type Sandbox } from './sandbox/sandbox';
import type {
  ResolveToolsInput,
  ResolveToolsOutput,
  RunToolInput,
  RunToolOutput,
} from '../common/contracts/tool-calls';

export { resolveWorkspaceDir } from './tools/workspace';

/** Builds the tool activities bound to the worker's registry and workspace root. */
export function createToolActivities(
  registry: ToolRegistry,
  workspaceRoot: string,
  health: AgentHealth,
  stores?: Stores,
  /** Keeps runs' workspaces in the store (absent: the worker's directory is all there is, e.g. a shared volume). */
  workspaces?: WorkspaceSync,
  /** Where bash, grep and glob run their programs (absent: they refuse). */
  sandbox?: Sandbox,
) {
  async function resolveTools({ agent, names, healthchecks = [] }: ResolveToolsInput): Promise<ResolveToolsOutput> {
    // A misspelled tool (or an MCP server this worker does not run) would silently vanish from the agent: fail the run.
    const unknown = registry.unknown(names);
    if (unknown.length)
      throw ApplicationFailure.create({
        type: ErrorType.UnknownTool,
        nonRetryable: true,
        message: registry.unknownToolsMessage(agent, unknown),
      });
    // Groups expand in place; a tool named twice (itself and through its group) is offered once.
    const known = [...new Set(names.flatMap((n) => registry.expand(n) ?? []))];
    const verdicts = await Promise.all(
      healthchecks.map(async (spec) => ((await health.check(spec)) ? spec.name : undefined)),
    );
    return {
      specs: known.map((n) => registry.spec(n)),
      unhealthyAgents: verdicts.filter((n): n is string => n !== undefined),
    };
  }

  async function runTool(input: RunToolInput): Promise<RunToolOutput> {
    const ctx = Context.current();
    const tool = registry.find(input.name);
    if (!tool) {
      return errorResult(`unknown tool "${input.name}"; available tools: ${registry.names().join(', ') || 'none'}`);
    }
    let raw: unknown;
    try {
      raw = input.arguments.trim() === '' ? {} : JSON.parse(input.arguments);
    } catch (err) {
      return errorResult(
        `arguments for "${input.name}" are not valid JSON (${(err as Error).message}); send a JSON object matching the tool's schema`,
      );
    }
    const parsed = tool.parameters.safeParse(raw);
    if (!parsed.success) {
      return errorResult(`invalid arguments for "${input.name}":\n${z.prettifyError(parsed.error)}`);
    }
    const workspace = await ensureWorkspace(resolveWorkspaceDir(workspaceRoot, input.workspace));
    if (ctx.info.attempt > 1 && input.eventBase) await announceRetry(input, input.eventBase, ctx.info.attempt);
    // A local activity (a quick tool) has no heartbeat: it lives inside its workflow task.
    const heartbeat = ctx.info.isLocal ? () => undefined : (details?: unknown) => ctx.heartbeat(details);
    const beat = ctx.info.isLocal ? undefined : setInterval(heartbeat, 1000);
    const use = tool.workspace ?? 'read';
    let session: WorkspaceSession | undefined;
    try {
      // The run's files as the store has them (a store that cannot be reached fails the attempt: it is retried).
      if (workspaces && use !== 'none')
        session = await workspaces.begin(tenantOf(input), input.workspace, use === 'write');
    } catch (err) {
      clearInterval(beat);
      if (err instanceof WorkspaceQuotaExceededError)
        return errorResult(`${err.message}; the tool did not run. Delete files the run no longer needs.`);
      throw err;
    }
    try {
      const out = await tool.execute(parsed.data, {
        workspace,
        signal: ctx.cancellationSignal,
        heartbeat,
        idempotencyKey: idempotencyKey(input),
        runId: input.runId,
        toolCallId: input.toolCallId,
        tenant: input.tenant ?? 'default',
        maxOutputBytes: input.maxOutputBytes,
        ...(sandbox ? { sandbox } : {}),
      });
      const result: ToolOutput = typeof out === 'string' ? { content: out } : out;
      // The tool's changes are committed before the model hears of them; past the quota they are undone and it hears
      // that.
      const refused = await finishWorkspace(session);
      if (refused)
        return errorResult(
          `${refused}\nThe tool's own output was:\n${truncateOutput(result.content, input.maxOutputBytes / 2).content}`,
        );
      const truncated = truncateOutput(result.content, input.maxOutputBytes);
      // Keep both the tool's own metadata (sources, exit codes) and the truncation record.
      const metadata: Record<string, unknown> | undefined =
        truncated.metadata || result.metadata ? { ...result.metadata, ...truncated.metadata } : undefined;
      let content = truncated.content;
      if (stores) {
        const tenant = input.tenant ?? 'default';
        if (truncated.metadata) {
          // The run keeps the truncated copy; the full output is stored and can be read back with get_tool_result.
          const ref = await stores.toolResults.put(tenant, {
            runId: input.runId,
            toolCallId: input.toolCallId,
            ...(input.stepId ? { stepId: input.stepId } : {}),
            content: result.content,
          });
          metadata!.ref = ref;
          content += `\n[full output stored: call get_tool_result with {"ref": "${ref}"}]`;
        }
        const sources = (
          result.metadata as { sources?: { url: string; title?: string; snippet?: string }[] } | undefined
        )?.sources;
        if (sources?.length)
          await stores.citations.addCitations(tenant, {
            runId: input.runId,
            stepId: input.stepId ?? `${input.runId}:${input.toolCallId}`,
            toolCallId: input.toolCallId,
            sources,
          });
      }
      return { content, isError: result.isError ?? false, ...(metadata ? { metadata } : {}) };
    } catch (err) {
      if (ctx.cancellationSignal.aborted) {
        session?.abandon();
        throw ctx.cancellationSignal.reason ?? err;
      }
      const refused = await finishWorkspace(session);
      if (err instanceof SandboxUnavailableError)
        throw ApplicationFailure.create({
          type: ErrorType.SandboxUnavailable,
          nonRetryable: true,
          message: err.message,
        });
      return errorResult(
        `tool "${input.name}" failed: ${(err as Error)?.message ?? String(err)}${refused ? `\n${refused}` : ''}`,
      );
    } finally {
      clearInterval(beat);
    }
  }

  return { resolveTools, runTool };
}

/** Tells stream readers that an earlier attempt of this tool call was lost (a dead worker, a timeout). */
async function announceRetry(input: RunToolInput, base: EventBase, attempt: number): Promise<void> {
  const publisher = activityPublisher(logOwnerOf(base));
  const reason = 'an earlier attempt of this tool call did not finish; it runs again with the same idempotency key';
  publisher.publish(
    {
      ...base,
      type: 'STEP_RETRY',
      stepId: input.stepId,
      toolCallId: input.toolCallId,
      attempt,
      timestamp: Date.now(),
      data: { reason },
    },
    true,
  );
  try {
    await publisher.flush();
  } catch (err) {
    Context.current().log.warn('could not publish STEP_RETRY of a tool call', {
      error: (err as Error).message,
      toolCallId: input.toolCallId,
    });
  }
}

/**
 * The key a tool dedupes its effects by: the same for every attempt of one call, its own for each call. The step tells
 * apart calls of one run with the same id (providers that number their calls afresh every turn).
 */
function idempotencyKey(input: RunToolInput): string {
  return input.stepId ? `${input.stepId}:${input.toolCallId}` : `${input.runId}:${input.toolCallId}`;
}

function tenantOf(input: RunToolInput): string {
  return input.tenant ?? 'default';
}

function errorResult(message: string): RunToolOutput {
  return { content: `Error: ${message}`, isError: true };
}

/** Cuts text to at most `maxBytes` UTF-8 bytes, keeping head and tail around a marker that says how much went. */
export function truncateOutput(
  content: string,
  maxBytes: number,
): { content: string; metadata?: Record<string, unknown> } {
  const bytes = Buffer.byteLength(content, 'utf8');
  if (bytes <= maxBytes) return { content };
  const buf = Buffer.from(content, 'utf8');
  const keep = Math.max(0, maxBytes - 200);
  // Cut on character boundaries (never inside a multibyte character, which would decode to U+FFFD):
  // the head ends before, and the tail starts after, any character the cut points fall in.
  const isContinuation = (i: number) => i < bytes && (buf[i] & 0xc0) === 0x80;
  let headEnd = Math.floor(keep * 0.75);
  while (headEnd > 0 && isContinuation(headEnd)) headEnd--;
  let tailStart = bytes - Math.floor(keep * 0.25);
  while (isContinuation(tailStart)) tailStart++;
  const head = buf.subarray(0, headEnd).toString('utf8');
  const tail = buf.subarray(tailStart).toString('utf8');
  const omitted = bytes - Buffer.byteLength(head) - Buffer.byteLength(tail);
  return {
    content: `${head}\n[… output truncated: ${omitted} of ${bytes} bytes omitted …]\n${tail}`,
    metadata: { truncated: true, originalBytes: bytes },
  };
}
