// The offline demo model `agio serve` uses when no OPENAI_API_KEY is set: a local OpenAI-compatible server
// that streams a canned but request-aware reply; it delegates to an offered agent tool, or calls `ls` once.
import {
  ScriptedModelServer,
  text,
  toolCall,
  toolCalls,
  type RecordedRequest,
  type ScriptedTurn,
} from './scripted-model-server';

interface Message {
  role: string;
  content?: string | null;
  name?: string;
}

const HINT = 'Set OPENAI_API_KEY (and optionally OPENAI_BASE_URL and AGIO_MODEL) to talk to a real model.';

/** Answers one request of the demo conversation. */
export function demoReply(req: RecordedRequest): ScriptedTurn {
  const body = req.body as {
    messages?: Message[];
    tools?: { function: { name: string } }[];
    response_format?: { type: string; json_schema?: { schema?: JsonSchema } };
  };
  const messages = body.messages ?? [];
  const last = messages[messages.length - 1];
  const pace = { chunkSize: 3, delayMs: 12 };
  // An agent with an output schema gets an answer that fits it (after its tool call, if it has tools to call).
  const schema = body.response_format?.type === 'json_schema' ? body.response_format.json_schema?.schema : undefined;
  if (schema && (last?.role === 'tool' || !body.tools?.length)) return text(JSON.stringify(exampleOf(schema)), pace);
  if (last?.role === 'tool') {
    const output = String(last.content ?? '').slice(0, 400) || '(empty)';
    return text(
      `(offline demo model) The tool answered:\n${output}\n\nThat was a real tool call, run as a Temporal activity. ${HINT}`,
      pace,
    );
  }
  const question = [...messages].reverse().find((m) => m.role === 'user')?.content ?? '';
  const tools = body.tools ?? [];
  const agentTool = tools.find((t) =>
    (t.function as { parameters?: { required?: string[] } }).parameters?.required?.includes('task'),
  );
  if (agentTool) return toolCalls([toolCall(agentTool.function.name, { task: String(question).slice(0, 500) })], pace);
  if (tools.some((t) => t.function.name === 'ls')) return toolCalls([toolCall('ls', {})], pace);
  return text(
    `(offline demo model) You said: "${String(question).slice(0, 200)}". This reply was streamed token by token from a ` +
      `Temporal activity into the run's event log and out through the bridge. ${HINT}`,
    pace,
  );
}

type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
};

/** A value that fits a (simple) JSON Schema: every property filled, strings saying where they came from. */
export function exampleOf(schema: JsonSchema): unknown {
  if (schema.const !== undefined) return schema.const;
  if (schema.enum?.length) return schema.enum[0];
  const alternative = schema.anyOf?.[0] ?? schema.oneOf?.[0];
  if (alternative) return exampleOf(alternative);
  switch (Array.isArray(schema.type) ? schema.type[0] : schema.type) {
    case 'object':
      return Object.fromEntries(Object.entries(schema.properties ?? {}).map(([key, value]) => [key, exampleOf(value)]));
    case 'array':
      return schema.items ? [exampleOf(schema.items)] : [];
    case 'number':
    case 'integer':
      return 1;
    case 'boolean':
      return true;
    case 'null':
      return null;
    default:
      return '(offline demo model)';
  }
}

/** Starts the demo model server. */
export async function startDemoModel(): Promise<ScriptedModelServer> {
  const server = await ScriptedModelServer.start();
  server.setDefault(demoReply);
  return server;
}
