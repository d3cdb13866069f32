import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  AgentSpec,
  asTool,
  defineAgent,
  loopAgent,
  parallelAgent,
  sequentialAgent,
  ASK_FOR_RISKY_TOOLS,
  type AnyAgentSpec,
} from '../../common';
import { AgentsFileError, loadAgentsFile, parseAgentsFile } from '../../worker/agents-file';
import { agentsToServe } from '../../worker/example-agents';

const load = (yaml: string) => parseAgentsFile(yaml, '/x/agents.yaml');
const problems = (yaml: string): string[] => {
  try {
    load(yaml);
  } catch (err) {
    expect(err).toBeInstanceOf(AgentsFileError);
    expect((err as Error).message).toContain('agents file /x/agents.yaml:');
    return (err as AgentsFileError).problems;
  }
  throw new Error('the file was accepted');
};
const byName = (agents: AnyAgentSpec[], name: string) => agents.find((a) => a.name === name)!;

describe('agents file', () => {
  it('builds the same specs as the code builders: agents as tools three levels deep, workflow agents, permissions, models and limits', () => {
    const { agents } = load(`
agents:
  - name: lead
    model: big-model
    modelSettings: { temperature: 0.2, maxTokens: 2000 }
    instructions: Lead.
    tools:
      - agent: manager
        description: Manages.
        stream: none
        timeoutMs: 60000
  - name: manager
    tools:
      - { agent: worker, description: Works., toolsAllowlist: [file_read] }
      - file_read
  - name: worker
    tools: [file_read, bash]
    permissions: [{ tool: bash, action: ask }]
    limits: { maxSteps: 4, maxTotalTokens: 10000 }
  - name: fanout
    kind: parallel
    subAgents: [worker, { name: inline-helper, instructions: Help. }]
  - name: pipeline
    kind: sequential
    subAgents: [fanout, lead]
  - name: refine
    kind: loop
    maxIterations: 3
    subAgents: [worker]
`);
    const worker = defineAgent({
      name: 'worker',
      tools: ['file_read', 'bash'],
      permissions: [{ tool: 'bash', action: 'ask' }],
      limits: { maxSteps: 4, maxTotalTokens: 10_000 },
    });
    const manager = defineAgent({
      name: 'manager',
      tools: [asTool(worker, { description: 'Works.', toolsAllowlist: ['file_read'] }), 'file_read'],
    });
    const lead = defineAgent({
      name: 'lead',
      model: 'big-model',
      modelSettings: { temperature: 0.2, maxTokens: 2000 },
      instructions: 'Lead.',
      tools: [asTool(manager, { description: 'Manages.', stream: 'none', timeoutMs: 60_000 })],
    });
    const fanout = parallelAgent({
      name: 'fanout',
      subAgents: [worker, { name: 'inline-helper', instructions: 'Help.' }],
    });
    expect(agents.map((a) => a.name)).toEqual(['lead', 'manager', 'worker', 'fanout', 'pipeline', 'refine']);
    expect(byName(agents, 'lead')).toEqual(lead);
    expect(byName(agents, 'fanout')).toEqual(fanout);
    expect(byName(agents, 'pipeline')).toEqual(sequentialAgent({ name: 'pipeline', subAgents: [fanout, lead] }));
    expect(byName(agents, 'refine')).toEqual(loopAgent({ name: 'refine', maxIterations: 3, subAgents: [worker] }));
  });

  it('reads JSON too', () => {
    const { agents } = load(JSON.stringify({ agents: [{ name: 'a', instructions: 'Hi.' }] }));
    expect(agents).toEqual([defineAgent({ name: 'a', instructions: 'Hi.' })]);
  });

  it('ships the example agents as such a file, unchanged from the code that defined them', () => {
    const coder = defineAgent({
      name: 'coder',
      description: 'Reads, writes and runs code in its workspace.',
      instructions:
        'You are a careful software engineer. Your commands run in a sandbox with no network, where only your workspace (/workspace) is writable. Use the tools to inspect and change files.',
      tools: ['ls', 'glob', 'grep', 'file_read', 'file_write', 'file_edit', 'bash', 'get_tool_result'],
      permissions: [{ tool: 'bash', pattern: 'rm -rf*', action: 'deny' }, ...ASK_FOR_RISKY_TOOLS],
      maxSteps: 100,
    });
    const exampleAgents = agentsToServe().agents;
    expect(exampleAgents.map((a) => a.name)).toEqual(['assistant', 'coder', 'researcher', 'lead']);
    expect(byName(exampleAgents, 'coder')).toEqual(coder);
    expect(byName(exampleAgents, 'lead')).toEqual(
      defineAgent({
        name: 'lead',
        description: 'Plans and delegates coding work to the coder agent.',
        instructions: 'You are a tech lead. Delegate hands-on work in the workspace to the coder agent, then report.',
        tools: [
          asTool(coder, {
            description:
              'A coding agent that inspects and changes files in its own workspace. Give it a complete task.',
          }),
        ],
      }),
    );
  });

  it('names the line, the path and the problem for a bad value, a typo and a missing field', () => {
    expect(
      problems(`agents:
  - name: a
    modelSettings:
      temperature: 7
  - name: b
    instructons: typo
  - name: c
    tools:
      - agent: a
`),
    ).toEqual([
      expect.stringMatching(/^line 4: agents\[0\]\.modelSettings\.temperature: .*2/),
      'line 6: agents[1].instructons: unknown key "instructons"',
      expect.stringMatching(/^line 9: agents\[2\]\.tools\[0\]\.description: /),
    ]);
  });

  it('refuses unknown agents, cycles, duplicates and workflow agents used as tools', () => {
    expect(problems(`agents:\n  - { name: a, tools: [{ agent: ghost, description: x }] }\n`)).toEqual([
      expect.stringContaining('agents[0].tools[0].agent: unknown agent "ghost"; the file defines: a'),
    ]);
    expect(
      problems(
        `agents:\n  - { name: a, tools: [{ agent: b, description: x }] }\n  - { name: b, tools: [{ agent: a, description: y }] }\n`,
      ),
    ).toEqual([expect.stringContaining('agent "a" uses itself: a → b → a')]);
    expect(problems(`agents:\n  - { name: a }\n  - { name: a }\n`)).toEqual([
      expect.stringContaining('line 3: agents[1].name: agent "a" is defined twice (also agents[0])'),
    ]);
    expect(
      problems(
        `agents:\n  - { name: l, kind: loop, subAgents: [b] }\n  - { name: b }\n  - { name: a, tools: [{ agent: l, description: x }] }\n`,
      ),
    ).toEqual([expect.stringContaining('"l" is a loop agent; only LLM agents can be used as tools')]);
    expect(problems(`agents:\n  - { name: s, kind: sequence, subAgents: [a] }\n`)).toEqual([
      expect.stringMatching(/agents\[0\]\.kind: /),
    ]);
    expect(problems(`agents:\n  - { name: s, kind: parallel, subAgents: [] }\n`)).toEqual([
      expect.stringContaining('agents[0].subAgents: a workflow agent needs at least one sub-agent'),
    ]);
  });

  it('refuses YAML syntax errors with their line, an empty file and unknown top-level keys', () => {
    expect(problems(`agents:\n  - name: a\n   bad: indent\n`)[0]).toMatch(/^line 3:/);
    expect(problems(`agents: []\n`)).toEqual([expect.stringContaining('agents: the file defines no agents')]);
    expect(problems(`agents: [{ name: a }]\nmodels: {}\n`)).toEqual(['line 2: models: unknown key "models"']);
  });

  it('names a missing file', () => {
    expect(() => loadAgentsFile(path.join(os.tmpdir(), 'no-such-agents.yaml'))).toThrow(
      /agents file .*no-such-agents\.yaml:\n {2}cannot be read: ENOENT/,
    );
  });

  it('declares MCP servers and checks them', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agents-file-'));
    const file = path.join(dir, 'agents.yaml');
    fs.writeFileSync(
      file,
      `mcpServers:\n  - { name: everything, transport: stdio, command: mcp-server-everything }\nagents:\n  - { name: a, tools: ["mcp:everything"] }\n`,
    );
    const loaded = loadAgentsFile(file);
    expect(loaded.mcpServers).toEqual([
      expect.objectContaining({ name: 'everything', transport: 'stdio', command: 'mcp-server-everything' }),
    ]);
    expect(AgentSpec.parse(loaded.agents[0]).tools).toEqual(['mcp:everything']);
    const withSecret = `mcpServers:\n  - { name: docs, transport: http, url: "https://\${DOCS_HOST}/mcp", headers: { Authorization: "Bearer \${DOCS_TOKEN}" } }\nagents: [{ name: a }]\n`;
    expect(
      parseAgentsFile(withSecret, 'x.yaml', { DOCS_HOST: 'mcp.example.com', DOCS_TOKEN: 's3cret' }).mcpServers[0],
    ).toMatchObject({ url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer s3cret' } });
    expect(() => parseAgentsFile(withSecret, 'x.yaml', { DOCS_HOST: 'mcp.example.com' })).toThrow(
      'line 2: mcpServers[0].headers.Authorization: environment variable DOCS_TOKEN is not set',
    );
    expect(problems(`mcpServers:\n  - { name: x, transport: smoke }\nagents: [{ name: a }]\n`)).toEqual([
      expect.stringMatching(/^line 2: mcpServers\[0\]\.transport: /),
    ]);
    expect(
      problems(
        `mcpServers:\n  - { name: x, transport: stdio, command: a }\n  - { name: x, transport: stdio, command: b }\nagents: [{ name: a }]\n`,
      ),
    ).toEqual([expect.stringContaining('MCP server "x" is declared twice')]);
  });
});

describe("the README's agents file", () => {
  it('loads as shown: agents as tools by name and inline, workflow agents, an MCP server and an output schema', () => {
    const readme = fs.readFileSync(path.join(__dirname, '..', '..', 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('### Agents from a file'));
    const yaml = /```yaml\n([\s\S]*?)```/.exec(section)![1];
    const { agents, mcpServers } = parseAgentsFile(yaml, 'README.md');
    expect(agents.map((a) => a.name)).toEqual(['lead', 'researcher', 'report', 'invoice']);
    expect(mcpServers.map((s) => s.name)).toEqual(['fs']);
    const report = agents[2];
    expect(report.kind === 'sequential' && report.subAgents.map((s) => s.name)).toEqual(['gather', 'lead']);
  });
});
