// Example agents registered by the embedded server, so a new user can start runs by name right away.
import { ASK_FOR_RISKY_TOOLS, asTool, defineAgent } from '../common';

/** A plain assistant without tools. */
export const assistant = defineAgent({
  name: 'assistant',
  description: 'Answers questions directly.',
  instructions: 'You are a helpful assistant. Answer concisely.',
});

/** A coding agent with the workspace tools. */
export const coder = defineAgent({
  name: 'coder',
  description: 'Reads, writes and runs code in its workspace.',
  instructions: 'You are a careful software engineer working in a sandboxed workspace. Use the tools to inspect and change files.',
  tools: ['ls', 'glob', 'grep', 'file_read', 'file_write', 'file_edit', 'bash', 'get_tool_result'],
  // Reading is free; writing files and running commands waits for a human decision (approve / deny).
  permissions: [{ tool: 'bash', pattern: 'rm -rf*', action: 'deny' }, ...ASK_FOR_RISKY_TOOLS],
  // Real coding work takes many turns (a file per turn, builds, fixes); a long conversation is compacted, not ended.
  maxSteps: 100,
});

/** A research agent with the web tools. */
export const researcher = defineAgent({
  name: 'researcher',
  description: 'Searches the web and reads pages, citing sources.',
  instructions: 'You research questions with web_search_api and web_reader_api and cite the URLs you used.',
  tools: ['web_search_api', 'web_reader_api'],
});

/** A lead agent that delegates workspace work to `coder`, which runs as a nested child workflow. */
export const lead = defineAgent({
  name: 'lead',
  description: 'Plans and delegates coding work to the coder agent.',
  instructions: 'You are a tech lead. Delegate hands-on work in the workspace to the coder agent, then report.',
  tools: [asTool(coder, { description: 'A coding agent that inspects and changes files in its own workspace. Give it a complete task.' })],
});

/** All example agents. */
export const exampleAgents = [assistant, coder, researcher, lead];
