// Agents from a YAML or JSON file (`agio serve --agents FILE`, `AGIO_AGENTS=FILE`): LLM agents, agents used as tools,
// loop, sequential and parallel agents, and the MCP servers whose tools they use. The file is checked with zod; every
// error names the file, the line and the path in it, and what is wrong. Agents refer to each other by name, in any
// order and to any depth; what comes out is the same plain AgentSpecs `defineAgent` and friends build in code.
import fs from 'node:fs';
import path from 'node:path';
import { LineCounter, parseDocument, type Document } from 'yaml';
import { z } from 'zod';
import { AgentSpec, AgentToolSpec, AnyAgentSpec, type WorkflowAgentSpec } from '../common';
import { McpServerConfig } from '../activities/tools/mcp/config';
import { FileSchedule, checkFileSchedules } from './file-schedules';
import { CallbackToolConfig } from '../activities/callbacks/http-template';
import { RemoteAgentConfig } from '../common/remote-agents';

// The file's shapes, typed by hand: TypeScript cannot infer a schema that contains itself.
/** How an agent is named where another agent uses it: by name (an agent of the file), or written inline. */
type AgentRef = string | AgentEntry;
/** One agent as written in the file (before names are resolved). */
export type AgentEntry = LlmEntry | WorkflowEntry;
interface AgentToolEntry extends Omit<AgentToolSpec, 'kind' | 'agent' | 'name'> {
  agent: AgentRef;
  name?: string;
}
interface LlmEntry extends Omit<AgentSpec, 'tools'> {
  tools: (string | AgentToolEntry)[];
}
interface WorkflowEntry extends Omit<WorkflowAgentSpec, 'subAgents'> {
  subAgents: AgentRef[];
}

/** Where the schemas below recur. */
const agentRef: z.ZodType<AgentRef, unknown> = z.lazy(() => z.union([z.string().min(1), AgentEntry]));

/** An agent used as a tool, as written in a file: the agent by name (or inline) plus how it is offered. */
const AgentToolEntry = z
  .object({
    agent: agentRef,
    ...AgentToolSpec.omit({ kind: true, agent: true, name: true }).shape,
    name: AgentToolSpec.shape.name.optional(),
  })
  .strict();

/** An LLM agent as written in a file: an AgentSpec whose agent tools may name other agents of the file. */
const LlmEntry = AgentSpec.extend({
  tools: z.array(z.union([z.string().min(1), AgentToolEntry])).default([]),
}).strict();

/** A loop, sequential or parallel agent as written in a file: sub-agents by name or inline. */
const WorkflowEntry = z
  .object({
    kind: z.enum(['loop', 'sequential', 'parallel']),
    name: AgentSpec.shape.name,
    description: z.string().default(''),
    subAgents: z.array(agentRef).min(1, 'a workflow agent needs at least one sub-agent'),
    maxIterations: z.number().int().nonnegative().optional(),
    continueAsNewEvery: z.number().int().positive().optional(),
    outputKey: z.string().optional(),
    limits: AgentSpec.shape.limits,
  })
  .strict();

/** Any agent as written in a file; without `kind` it is an LLM agent. */
const AgentEntry: z.ZodType<AgentEntry, unknown> = z.preprocess(
  (v) => (v && typeof v === 'object' && !Array.isArray(v) && !('kind' in v) ? { kind: 'llm', ...v } : v),
  z.discriminatedUnion('kind', [LlmEntry, WorkflowEntry]),
);

/** The whole file. */
export const AgentsFile = z
  .object({
    /** Agents that can be started by name; agents defined inline inside them are not. */
    agents: z.array(AgentEntry).min(1, 'the file defines no agents'),
    /** MCP servers whose tools the agents use (`<server>__<tool>`, or `mcp:<server>` for all of them). */
    mcpServers: z.array(McpServerConfig).default([]),
    /** Modules (TypeScript or JavaScript, relative to the file) exporting tools of one's own, made with defineTool. */
    tools: z.array(z.string().min(1)).default([]),
    /** Agents started on cron or interval schedules (worker/file-schedules.ts). */
    schedules: z.array(FileSchedule).default([]),
    /**
     * Callback tools: an HTTP request starts the outside work, then the run waits for its result (http-template.ts).
     */
    callbackTools: z.array(CallbackToolConfig).default([]),
    /** Remote A2A agents offered as tools (by agent card URL; activities/a2a/remote-agent-tool.ts). */
    remoteAgents: z.array(RemoteAgentConfig).default([]),
  })
  .strict();

/** What a file defines. */
export interface LoadedAgents {
  /** Absolute path of the file. */
  file: string;
  /** The file's top-level agents, resolved into plain specs. */
  agents: AnyAgentSpec[];
  mcpServers: McpServerConfig[];
  /** Absolute paths of the file's `tools:` modules (load them with loadToolModules, or use agentsWithToolsToServe). */
  toolModules: string[];
  /** Every tool an agent of the file names, with where (to check them against a worker's tools before it starts). */
  toolRefs: ToolRef[];
  /** The file's schedules (applied by workers at start: applyFileSchedules). */
  schedules: FileSchedule[];
  /** The file's callback tools (`${NAME}` in their start requests replaced from the environment). */
  callbackTools: CallbackToolConfig[];
  /** The file's remote A2A agents, offered as tools. */
  remoteAgents: RemoteAgentConfig[];
}

/** A file that cannot be used: every message names the file, the line and the path in it. */
export class AgentsFileError extends Error {
  override name = 'AgentsFileError';
  constructor(
    readonly file: string,
    readonly problems: string[],
  ) {
    super(`agents file ${file}:\n${problems.map((p) => `  ${p}`).join('\n')}`);
  }
}

/**
 * Reads, checks and resolves an agents file (YAML, or JSON, which is YAML too). `${NAME}` in an MCP server's strings
 * (its command, arguments, environment, URL and headers) is replaced by the environment variable, so secrets stay out
 * of the file; a variable that is not set is an error.
 */
export function loadAgentsFile(file: string, env: NodeJS.ProcessEnv = process.env): LoadedAgents {
  const absolute = path.resolve(file);
  let source: string;
  try {
    source = fs.readFileSync(absolute, 'utf8');
  } catch (err) {
    throw new AgentsFileError(absolute, [`cannot be read: ${(err as Error).message}`]);
  }
  return parseAgentsFile(source, absolute, env);
}

/** Checks and resolves the text of an agents file; `file` names it in errors. */
export function parseAgentsFile(source: string, file: string, env: NodeJS.ProcessEnv = process.env): LoadedAgents {
  const lines = new LineCounter();
  const doc = parseDocument(source, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length) {
    throw new AgentsFileError(
      file,
      doc.errors.map((e) => {
        const at = lines.linePos(e.pos[0]);
        return `line ${at.line}:${at.col}: ${e.message.split('\n')[0]}`;
      }),
    );
  }
  const where = (at: (string | number)[]) => `${lineOf(doc, lines, at)}${formatPath(at) || '(top level)'}`;
  const parsed = AgentsFile.safeParse(doc.toJS());
  if (!parsed.success)
    throw new AgentsFileError(
      file,
      plainIssues(parsed.error.issues).map((i) => `${where(i.path)}: ${i.message}`),
    );
  const problems: string[] = [];
  const agents = resolveAgents(parsed.data.agents, (at, message) => problems.push(`${where(at)}: ${message}`));
  const servers = new Map<string, number>();
  parsed.data.mcpServers.forEach((s, i) => {
    if (servers.has(s.name))
      problems.push(
        `${where(['mcpServers', i, 'name'])}: MCP server "${s.name}" is declared twice (also mcpServers[${servers.get(s.name)}])`,
      );
    servers.set(s.name, i);
  });
  const mcpServers = parsed.data.mcpServers.map((server, i) =>
    withEnvironment(server, env, (at, message) => problems.push(`${where(['mcpServers', i, ...at])}: ${message}`)),
  );
  const callbackTools = parsed.data.callbackTools.map((tool, i) => ({
    ...tool,
    start: withEnvironment(tool.start, env, (at, m) =>
      problems.push(`${where(['callbackTools', i, 'start', ...at])}: ${m}`),
    ),
  }));
  const named = parsed.data.agents.map((a) => a.name);
  checkFileSchedules(parsed.data.schedules, named, (at, message) => problems.push(`${where(at)}: ${message}`));
  if (problems.length) throw new AgentsFileError(file, problems);
  const toolModules = parsed.data.tools.map((module) => path.resolve(path.dirname(file), module));
  const toolRefs = collectToolRefs(parsed.data.agents, where);
  const { schedules, remoteAgents } = parsed.data;
  return { file, agents, mcpServers, toolModules, toolRefs, schedules, callbackTools, remoteAgents };
}

/**
 * Turns the file's entries into specs: names become the agents they name (their whole spec, as `asTool` and the
 * workflow-agent builders inline it), and every spec is parsed once more by the schemas code uses.
 */
function resolveAgents(
  entries: AgentEntry[],
  problem: (at: (string | number)[], message: string) => void,
): AnyAgentSpec[] {
  const byName = new Map<string, { entry: AgentEntry; at: (string | number)[] }>();
  entries.forEach((entry, i) => {
    const first = byName.get(entry.name);
    if (first) problem(['agents', i, 'name'], `agent "${entry.name}" is defined twice (also ${formatPath(first.at)})`);
    else byName.set(entry.name, { entry, at: ['agents', i] });
  });
  const resolved = new Map<string, AnyAgentSpec | undefined>();
  const known = () => [...byName.keys()].join(', ');

  const resolveRef = (ref: AgentRef, at: (string | number)[], chain: string[]): AnyAgentSpec | undefined => {
    if (typeof ref !== 'string') return resolveEntry(ref, at, chain);
    const target = byName.get(ref);
    if (!target) return void problem(at, `unknown agent "${ref}"; the file defines: ${known()}`);
    if (chain.includes(ref)) return void problem(at, `agent "${ref}" uses itself: ${[...chain, ref].join(' → ')}`);
    if (resolved.has(ref)) return resolved.get(ref);
    const spec = resolveEntry(target.entry, target.at, chain);
    resolved.set(ref, spec);
    return spec;
  };

  const resolveEntry = (entry: AgentEntry, at: (string | number)[], chain: string[]): AnyAgentSpec | undefined => {
    const inner = [...chain, entry.name];
    if (entry.kind === 'llm') {
      const tools = entry.tools.map((tool, t) => {
        if (typeof tool === 'string') return tool;
        const { agent, ...offer } = tool;
        const spec = resolveRef(agent, [...at, 'tools', t, 'agent'], inner);
        if (!spec) return undefined;
        if (spec.kind !== 'llm')
          return void problem(
            [...at, 'tools', t, 'agent'],
            `"${spec.name}" is a ${spec.kind} agent; only LLM agents can be used as tools (wrap it in an LLM agent, or make it a sub-agent)`,
          );
        return checked(
          AgentToolSpec,
          { ...offer, kind: 'agent_tool', name: offer.name ?? spec.name, agent: spec },
          [...at, 'tools', t],
          problem,
        );
      });
      if (tools.some((t) => t === undefined)) return undefined;
      return checked(AgentSpec, { ...entry, tools }, at, problem);
    }
    const subAgents = entry.subAgents.map((ref, s) => resolveRef(ref, [...at, 'subAgents', s], inner));
    if (subAgents.some((s) => s === undefined)) return undefined;
    return checked(
      AnyAgentSpec,
      { ...entry, subAgents } satisfies Omit<WorkflowAgentSpec, 'subAgents'> & { subAgents: unknown[] },
      at,
      problem,
    );
  };

  // By name, so an agent another one used already is resolved once (resolveRef keeps what it resolved).
  return entries
    .map((entry, i) => resolveRef(entry.name, ['agents', i], []))
    .filter((a): a is AnyAgentSpec => a !== undefined);
}

/** Parses with the code's own schema; its complaints are reported at `at`. */
function checked<T>(
  schema: z.ZodType<T, unknown>,
  value: unknown,
  at: (string | number)[],
  problem: (at: (string | number)[], message: string) => void,
): T | undefined {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  for (const issue of plainIssues(result.error.issues)) problem([...at, ...issue.path], issue.message);
  return undefined;
}

/**
 * zod's issues with every "no branch of the union matched" (an agent named or written inline, a tool named or an agent
 * offered as one) replaced by the complaints of the branch the value was meant for: the one that got past its type.
 */
function plainIssues(
  issues: z.core.$ZodIssue[],
  prefix: (string | number)[] = [],
): { path: (string | number)[]; message: string }[] {
  return issues.flatMap((issue) => {
    const at = [...prefix, ...(issue.path as (string | number)[])];
    // A typo is reported at its own line, as the key it is.
    if (issue.code === 'unrecognized_keys')
      return issue.keys.map((key) => ({ path: [...at, key], message: `unknown key "${key}"` }));
    if (issue.code !== 'invalid_union' || !issue.errors.length) return [{ path: at, message: issue.message }];
    const meant = issue.errors.find((branch) => !branch.some((i) => i.code === 'invalid_type' && i.path.length === 0));
    return meant ? plainIssues(meant, at) : [{ path: at, message: issue.message }];
  });
}

/** The server with `${NAME}` replaced in every string it holds; unset variables are reported where they are used. */
function withEnvironment<T>(
  server: T,
  env: NodeJS.ProcessEnv,
  problem: (at: (string | number)[], message: string) => void,
): T {
  const expand = (value: unknown, at: (string | number)[]): unknown => {
    if (typeof value === 'string') {
      return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => {
        const found = env[name];
        if (found === undefined) problem(at, `environment variable ${name} is not set`);
        return found ?? '';
      });
    }
    if (Array.isArray(value)) return value.map((v, i) => expand(v, [...at, i]));
    if (value && typeof value === 'object')
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, expand(v, [...at, k])]));
    return value;
  };
  return expand(server, []) as T;
}

/** `agents[2].tools[0].agent`. */
function formatPath(at: (string | number)[]): string {
  return at.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i ? '.' : ''}${p}`)).join('');
}

/** `line 12: ` for the innermost node of the path the document has (a missing key points at its parent). */
function lineOf(doc: Document, lines: LineCounter, at: (string | number)[]): string {
  for (let n = at.length; n >= 0; n--) {
    const node = doc.getIn(at.slice(0, n), true) as { range?: [number, number, number] } | undefined;
    if (node?.range) return `line ${lines.linePos(node.range[0]).line}: `;
  }
  return '';
}

/** One tool name an agent of the file lists, and where. */
export interface ToolRef {
  name: string;
  agent: string;
  /** `line 7: agents[1].tools[0]`. */
  where: string;
}

/**
 * Every tool name in the agents' `tools` lists, inline agents included (agents named by reference are listed where
 * defined).
 */
export function collectToolRefs(entries: AgentEntry[], where: (at: (string | number)[]) => string): ToolRef[] {
  const refs: ToolRef[] = [];
  const visit = (entry: AgentEntry, at: (string | number)[]): void => {
    if (entry.kind !== 'llm')
      return entry.subAgents.forEach((sub, s) => {
        if (typeof sub !== 'string') visit(sub, [...at, 'subAgents', s]);
      });
    entry.tools.forEach((tool, t) => {
      if (typeof tool === 'string') refs.push({ name: tool, agent: entry.name, where: where([...at, 'tools', t]) });
      else if (typeof tool.agent !== 'string') visit(tool.agent, [...at, 'tools', t, 'agent']);
    });
  };
  entries.forEach((entry, i) => visit(entry, ['agents', i]));
  return refs;
}
