// The offline demo model `agio serve` uses when no OPENAI_API_KEY is set: a local OpenAI-compatible server
// that streams a canned but request-aware reply; it delegates to an offered agent tool, or calls `ls` once.
import { ScriptedModelServer, text, toolCall, toolCalls, type RecordedRequest, type ScriptedTurn } from './scripted-model-server';

interface Message {
  role: string;
  content?: string | null;
  name?: string;
}

const HINT = 'Set OPENAI_API_KEY (and optionally OPENAI_BASE_URL and AGIO_MODEL) to talk to a real model.';

/** Answers one request of the demo conversation. */
export function demoReply(req: RecordedRequest): ScriptedTurn {
  const body = req.body as { messages?: Message[]; tools?: { function: { name: string } }[] };
  const messages = body.messages ?? [];
  const last = messages[messages.length - 1];
  const pace = { chunkSize: 3, delayMs: 12 };
  if (last?.role === 'tool') {
    const output = String(last.content ?? '').slice(0, 400) || '(empty)';
    return text(`(offline demo model) The tool answered:\n${output}\n\nThat was a real tool call, run as a Temporal activity. ${HINT}`, pace);
  }
  const question = [...messages].reverse().find((m) => m.role === 'user')?.content ?? '';
  const tools = body.tools ?? [];
  const agentTool = tools.find((t) => (t.function as { parameters?: { required?: string[] } }).parameters?.required?.includes('task'));
  if (agentTool) return toolCalls([toolCall(agentTool.function.name, { task: String(question).slice(0, 500) })], pace);
  if (tools.some((t) => t.function.name === 'ls')) return toolCalls([toolCall('ls', {})], pace);
  return text(
    `(offline demo model) You said: "${String(question).slice(0, 200)}". This reply was streamed token by token from a ` +
      `Temporal activity into the run's event log and out through the bridge. ${HINT}`,
    pace,
  );
}

/** Starts the demo model server. */
export async function startDemoModel(): Promise<ScriptedModelServer> {
  const server = await ScriptedModelServer.start();
  server.setDefault(demoReply);
  return server;
}
