#!/usr/bin/env node
// The `agio` command: serve the embedded stack, or start, watch and steer runs through a bridge.
import { parseArgs } from 'node:util';
import { bridgeFromEnv, printJson, run, watch } from './commands';
import { SCHEDULE_USAGE } from './schedule-command';
import { WEBHOOKS_USAGE } from './webhooks-command';
import { MCP_USAGE } from './mcp-command';
import { RESCUE_USAGE } from './rescue-command';
import { REDRIVE_USAGE } from './redrive-command';

const USAGE = `usage: agio <command> [args]

  serve [--port N] [--agents FILE] [--tools FILE]…
                                   Temporal dev server + worker + HTTP bridge in one process; the agents
                                   (and MCP servers) from a YAML/JSON file, else agents/examples.yaml; tools
                                   of your own from TS/JS modules exporting defineTool tools (also the
                                   agents file's \`tools:\` list)
  dev [--port N] [--data DIR] [--no-ui]
                                   a Temporal server alone for your own worker and backend: 127.0.0.1:7233
                                   when free, namespace and search attributes registered, data in DIR
                                   (default AGIO_DATA_DIR, else .agio-dev)
  run <agent> "<input>" [--session ID]
                                   start a run and show it live (nested runs indented)
  watch <runId> [--after ID]       follow a run's events live (after an offset or an event's id)
  runs [--status S] [--agent A] [--schedule ID] [--limit N] [--page TOKEN]
                                   your runs, newest first (S: running, completed, failed…)
  status <runId>                   status and, when finished, the output
  pause <runId> [--reason TEXT]    pause at the next safe point (waits until parked)
  resume <runId> [--budget USD]    resume a paused run (with a new cost budget for its tree)
  budget <runId> <USD>             set the run tree's cost budget (limits.maxCostUsd); runs paused for it go on
  tenant-budget <tenant> [<USD>|--clear]
                                   a tenant's daily budget and today's spend; set or clear it (admin token)
  state <runId>                    what the run is doing now (paused, loop position, children…)
  approvals [--agent A] [--root RUNID] [--tool T] [--limit N] [--json]
                                   tool calls of your runs waiting for a decision, nested runs included
  approve <runId> <callId> [--remember] [--binding B]
                                   approve a tool call waiting for a decision (nested runs too); with the
                                   binding \`agio approvals\` shows, refused if the call is no longer that one
  deny <runId> <callId> [--reason TEXT] [--binding B]
                                   deny it; the reason is shown to the model
  message <runId> [--interrupt] "<text>"
                                   add a user message to a running agent run (nested runs by their own id):
                                   read before its next model call; --interrupt cancels the call in flight
  cancel <runId>                   cancel a run and everything it started
  agents                           list the agents the bridge can start
${SCHEDULE_USAGE}${WEBHOOKS_USAGE}${RESCUE_USAGE}${REDRIVE_USAGE}${MCP_USAGE}  versions [promote <buildId> [--force]] [--deployment NAME]
                                   worker versions of the deployment; promote one to current (runs pinned
                                   to other versions move to it at their next safe point; an older build
                                   than the current one only with --force)
  openapi [FILE] [--types FILE]    the bridge's HTTP API as an OpenAPI 3.1 document (stdout or FILE; what
                                   GET /openapi.json serves), and its TypeScript types (openapi-typescript)
  replay-check [--closed N] [--workflows PATH | --bundle FILE] [--query Q]
                                   replay open runs (and recent closed ones) against the workflow code
                                   about to be deployed; exits 1 naming any run that would not replay

versions and replay-check talk to Temporal (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, as the worker does). The other
commands but serve talk to AGIO_URL (default http://127.0.0.1:8080) with AGIO_TOKEN (default: the token
agio serve generated, from AGIO_DATA_DIR/token).
`;

/** A dollar amount from the command line (the bridge checks its bounds); not a number is a usage error here. */
function dollars(text: string | undefined): number {
  const n = Number(text);
  if (text === undefined || text.trim() === '' || !Number.isFinite(n))
    throw new Error(`"${text}" is not a number of US dollars`);
  return n;
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  // These parse their own options and talk to Temporal, not to a bridge.
  if (command === 'versions') return (await import('./versions')).versionsCommand(rest);
  if (command === 'replay-check') return (await import('./replay-check')).replayCheckCommand(rest);
  if (command === 'schedule') return (await import('./schedule-command')).scheduleCommand(rest);
  if (command === 'openapi') return (await import('../bridge/openapi-file')).openApiCommand(rest);
  if (command === 'webhooks') return (await import('./webhooks-command')).webhooksCommand(rest);
  if (command === 'mcp') return (await import('./mcp-command')).mcpCommand(rest);
  if (command === 'retry' || command === 'fork') return (await import('./rescue-command')).rescueCommand(command, rest);
  if (command === 'compare' || command === 'bulk')
    return (await import('./redrive-command')).redriveCommand(command, rest);
  const bridge = bridgeFromEnv();
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      port: { type: 'string' },
      agents: { type: 'string' },
      tools: { type: 'string', multiple: true },
      data: { type: 'string' },
      'no-ui': { type: 'boolean' },
      session: { type: 'string' },
      after: { type: 'string' },
      reason: { type: 'string' },
      remember: { type: 'boolean' },
      status: { type: 'string' },
      agent: { type: 'string' },
      limit: { type: 'string' },
      page: { type: 'string' },
      schedule: { type: 'string' },
      budget: { type: 'string' },
      clear: { type: 'boolean' },
      root: { type: 'string' },
      tool: { type: 'string' },
      binding: { type: 'string' },
      json: { type: 'boolean' },
      interrupt: { type: 'boolean' },
    },
  });
  const need = (n: number, what: string) => {
    if (positionals.length < n) throw new Error(`${command} needs ${what}\n\n${USAGE}`);
  };
  switch (command) {
    case 'serve': {
      const { serve } = await import('./serve');
      await serve({
        port: values.port ? Number(values.port) : undefined,
        agents: values.agents,
        ...(values.tools ? { tools: values.tools } : {}),
      });
      return 0;
    }
    case 'dev': {
      const { dev } = await import('./dev');
      await dev({
        port: values.port ? Number(values.port) : undefined,
        dataDir: values.data,
        ...(values['no-ui'] ? { ui: false } : {}),
      });
      return 0;
    }
    case 'run':
      need(2, '<agent> "<input>"');
      return run(bridge, positionals[0], positionals.slice(1).join(' '), values.session);
    case 'watch':
      need(1, '<runId>');
      return watch(bridge, positionals[0], values.after ?? -1);
    case 'runs': {
      const query = new URLSearchParams(
        Object.entries({
          status: values.status,
          agent: values.agent,
          schedule: values.schedule,
          limit: values.limit,
          pageToken: values.page,
        }).filter((e): e is [string, string] => e[1] !== undefined),
      );
      return printJson(bridge.request('GET', `/runs${query.size ? `?${query}` : ''}`));
    }
    case 'status':
      need(1, '<runId>');
      return printJson(bridge.request('GET', `/runs/${encodeURIComponent(positionals[0])}`));
    case 'pause':
    case 'resume':
      need(1, '<runId>');
      return printJson(
        // Recorded as the token's identity (`by` is the bridge's to set).
        bridge.request('POST', `/runs/${encodeURIComponent(positionals[0])}/${command}`, {
          ...(values.reason ? { reason: values.reason } : {}),
          ...(values.budget !== undefined ? { maxCostUsd: dollars(values.budget) } : {}),
        }),
      );
    case 'budget':
      need(2, '<runId> <USD>');
      return printJson(
        bridge.request('POST', `/runs/${encodeURIComponent(positionals[0])}/budget`, {
          maxCostUsd: dollars(positionals[1]),
        }),
      );
    case 'tenant-budget': {
      need(1, '<tenant>');
      const url = `/tenants/${encodeURIComponent(positionals[0])}/budget`;
      if (positionals[1] === undefined && !values.clear) return printJson(bridge.request('GET', url));
      return printJson(bridge.request('POST', url, { dailyUsd: values.clear ? null : dollars(positionals[1]) }));
    }
    case 'state':
      need(1, '<runId>');
      return printJson(bridge.request('GET', `/runs/${encodeURIComponent(positionals[0])}/state`));
    case 'approvals':
      return (await import('./approvals-command')).approvalsCommand(bridge, values);
    case 'approve':
    case 'deny':
      need(2, '<runId> <callId>');
      return printJson(
        bridge.request(
          'POST',
          `/runs/${encodeURIComponent(positionals[0])}/tool-calls/${encodeURIComponent(positionals[1])}/${command}`,
          {
            ...(values.remember ? { remember: true } : {}),
            ...(values.reason ? { message: values.reason } : {}),
            ...(values.binding ? { binding: values.binding } : {}),
          },
        ),
      );
    case 'message':
      need(2, '<runId> "<text>"');
      return printJson(
        bridge.request('POST', `/runs/${encodeURIComponent(positionals[0])}/messages`, {
          text: positionals.slice(1).join(' '),
          mode: values.interrupt ? 'interrupt' : 'enqueue',
        }),
      );
    case 'cancel':
      need(1, '<runId>');
      return printJson(bridge.request('POST', `/runs/${encodeURIComponent(positionals[0])}/cancel`));
    case 'agents':
      return printJson(bridge.request('GET', '/agents'));
    case undefined:
    case 'help':
    case '--help':
      process.stdout.write(USAGE);
      return command ? 0 : 2;
    default:
      process.stderr.write(`agio: unknown command "${command}"\n\n${USAGE}`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    console.error(`agio: ${(err as Error).message}`);
    process.exit(1);
  },
);
