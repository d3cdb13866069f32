// The check of an agents file's tool names against what a worker will offer, before anything starts: every misspelled
// tool is reported with the file's line and path, inline agents' too, while MCP tools of the file's servers pass.
import { AgentsFileError, parseAgentsFile } from '../../worker/agents-file';
import { checkAgentsFileTools } from '../../worker/agents-file-tools';

const FILE = `mcpServers:
  - { name: docs, transport: http, url: "https://docs.example.com/mcp" }
  - { name: fs, transport: stdio, command: fs-server, tools: [read_file] }
agents:
  - name: lead
    tools:
      - file_read
      - mcp:docs
      - docs__search
      - fs__read_file
      - agent: { name: helper, tools: [grpe] }
        description: Helps.
  - name: cycle
    kind: loop
    subAgents:
      - lead
      - { name: inline, tools: [exit_loop, fs__write_file, mcp:nowhere] }
`;

const problems = (workerTools: string[]): string[] => {
  try {
    checkAgentsFileTools(parseAgentsFile(FILE, '/x/agents.yaml'), workerTools);
    return [];
  } catch (err) {
    expect(err).toBeInstanceOf(AgentsFileError);
    return (err as AgentsFileError).problems;
  }
};

describe('checkAgentsFileTools', () => {
  it('names each tool no worker has, with its line and path, inline agents included', () => {
    expect(problems(['file_read', 'grep'])).toEqual([
      expect.stringMatching(
        /^line 11: agents\[0\]\.tools\[4\]\.agent\.tools\[0\]: agent "helper" names a tool no worker here has: "grpe"; the worker has file_read, grep, mcp:docs, mcp:fs /,
      ),
      expect.stringMatching(/^line 17: agents\[1\]\.subAgents\[1\]\.tools\[1\]: agent "inline" .*"fs__write_file"/),
      expect.stringMatching(/^line 17: agents\[1\]\.subAgents\[1\]\.tools\[2\]: agent "inline" .*"mcp:nowhere"/),
    ]);
  });

  it("passes a server's tools (any of a server without a tools list, the listed ones of one with), groups and exit_loop", () => {
    const file = parseAgentsFile(
      FILE.replace('grpe', 'grep').replace(', fs__write_file, mcp:nowhere', ''),
      '/x/a.yaml',
    );
    expect(() => checkAgentsFileTools(file, ['file_read', 'grep'])).not.toThrow();
  });

  it("resolves the file's tools: modules against the file's directory", () => {
    const loaded = parseAgentsFile(
      'tools: [./tools.ts, ../shared/more.js]\nagents: [{ name: a }]\n',
      '/x/y/agents.yaml',
    );
    expect(loaded.toolModules).toEqual(['/x/y/tools.ts', '/x/shared/more.js']);
  });
});
