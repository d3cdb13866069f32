// How an MCP server is declared (in code, or under `mcpServers:` in an agents file): a stdio command or a streamable
// HTTP endpoint, which of its tools to offer, and how long a connection lives. Strict, so a typo in a file is caught.
import { z } from 'zod';

/** The placeholder replaced by the run's absolute workspace path (run-lifetime stdio servers only). */
export const WORKSPACE_PLACEHOLDER = '{workspace}';

/** Default idle time after which a run's own connection is closed. */
export const DEFAULT_MCP_IDLE_TIMEOUT_MS = 5 * 60_000;

const common = {
  /** Prefix of the server's tools (`<name>__<tool>`) and the `mcp:<name>` group. */
  name: z.string().regex(/^[A-Za-z0-9_-]{1,32}$/, 'MCP server names are 1-32 letters, digits, _ or -'),
  /** Allowlist of the server's tool names (default: all of them). */
  tools: z
    .array(z.string().min(1))
    .min(1, 'list at least one tool, or leave `tools` out to offer all of them')
    .optional(),
  /** Start-to-close timeout of one call, in ms (default 60 s). */
  timeoutMs: z.number().int().positive().optional(),
  /** Attempts per call (default 3 for idempotent tools, 1 otherwise). */
  maxAttempts: z.number().int().positive().optional(),
  /** Whether calls may be repeated safely; overrides the tools' `idempotentHint`/`readOnlyHint` annotations. */
  idempotent: z.boolean().optional(),
  /** `worker`: one connection per worker process, shared by all runs; `run`: one per run, for stateful servers. */
  lifetime: z.enum(['worker', 'run']).default('worker'),
  /** `lifetime: run` only: a run's connection closes after this long without a call (default 5 min). */
  idleTimeoutMs: z.number().int().positive().optional(),
};

const stdio = z
  .object({
    ...common,
    transport: z.literal('stdio'),
    /** The executable; a path with a slash is relative to the worker's working directory. */
    command: z.string().min(1),
    args: z.array(z.string()).default([]),
    /** Added to the small default environment (HOME, PATH, USER, …); the worker's own environment is not passed. */
    env: z.record(z.string(), z.string()).optional(),
    /** Working directory (default: the run's workspace for `lifetime: run`, else the worker's). */
    cwd: z.string().min(1).optional(),
  })
  .strict();

const http = z
  .object({
    ...common,
    transport: z.literal('http'),
    /** The streamable HTTP endpoint, e.g. `https://example.com/mcp`. */
    url: z.url({ protocol: /^https?$/, error: 'url must be an http:// or https:// URL' }),
    /** Sent with every request (e.g. Authorization). */
    headers: z.record(z.string(), z.string()).optional(),
  })
  .strict();

/** One MCP server whose tools the worker offers. */
export const McpServerConfig = z
  .discriminatedUnion('transport', [stdio, http], {
    error: (issue) => (issue.code === 'invalid_union' ? "transport must be 'stdio' or 'http'" : undefined),
  })
  .superRefine((server, ctx) => {
    if (server.lifetime !== 'run' && server.idleTimeoutMs !== undefined) {
      const message = 'idleTimeoutMs applies to `lifetime: run` only';
      ctx.addIssue({ code: 'custom', path: ['idleTimeoutMs'], message });
    }
    if (server.transport !== 'stdio' || server.lifetime === 'run') return;
    const places: [PropertyKey[], string | undefined][] = [
      ...server.args.map((a, i): [PropertyKey[], string] => [['args', i], a]),
      ...Object.entries(server.env ?? {}).map(([k, v]): [PropertyKey[], string] => [['env', k], v]),
      [['cwd'], server.cwd],
    ];
    for (const [path, value] of places) {
      if (!value?.includes(WORKSPACE_PLACEHOLDER)) continue;
      const message = `${WORKSPACE_PLACEHOLDER} needs \`lifetime: run\`: a server shared by the worker's runs has no workspace`;
      ctx.addIssue({ code: 'custom', path, message });
    }
  });
/** One MCP server, defaults filled in. */
export type McpServerConfig = z.infer<typeof McpServerConfig>;
/** One MCP server as written (defaults may be left out). */
export type McpServerConfigInput = z.input<typeof McpServerConfig>;
