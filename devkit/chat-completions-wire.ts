// OpenAI's chat-completions wire format, as the scripted model server writes it: an answer as one JSON body or as SSE
// chunks, its usage, and error bodies shaped like OpenAI's, so that the real `openai` client parses them unchanged.

/** Token counts as OpenAI reports them. */
export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/** A tool call as it goes on the wire; `arguments` is raw JSON text. */
export interface WireToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** One assistant answer to encode; `id`, `created` and `model` go on the body and on every chunk. */
export interface Completion {
  id: string;
  created: number;
  model: string;
  content?: string;
  reasoning?: string;
  toolCalls: WireToolCall[];
  finishReason: string;
  usage: Usage;
}

/** The text an answer streams, cut into pieces of a chunk size: reasoning, then content, then each call's arguments. */
export interface Pieces {
  reasoning: string[];
  content: string[];
  args: string[][];
}

/** One SSE event: the chunk and the text it carries (what the server reports to `onChunk`). */
export interface Frame {
  data: unknown;
  text: string;
}

/** The response to `GET /models`: the one model the scripted server pretends to serve. */
export const MODEL_LIST = {
  object: 'list',
  data: [{ id: 'scripted-model', object: 'model', created: 0, owned_by: 'agio-tests' }],
};

/** The event that ends every complete stream. */
export const SSE_DONE = 'data: [DONE]\n\n';

/** One chunk as an SSE event. */
export function sseEvent(data: unknown): string {
  return `data: ${JSON.stringify(data)}\n\n`;
}

function split(s: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < s.length; i += size) out.push(s.slice(i, i + size));
  return out;
}

/** Cuts an answer's text into pieces of `size` characters (at least one). */
export function piecesOf(answer: Pick<Completion, 'reasoning' | 'content' | 'toolCalls'>, size: number): Pieces {
  const n = Math.max(1, size);
  return {
    reasoning: split(answer.reasoning ?? '', n),
    content: split(answer.content ?? '', n),
    args: answer.toolCalls.map((c) => split(c.arguments, n)),
  };
}

/** The usage as given, else 10 prompt tokens and one completion token per streamed piece; the total is the sum. */
export function usageOf(
  given: { prompt_tokens: number; completion_tokens: number; total_tokens?: number } | undefined,
  pieces: Pieces,
): Usage {
  const count = pieces.reasoning.length + pieces.content.length + pieces.args.reduce((n, a) => n + a.length, 0);
  const u = given ?? { prompt_tokens: 10, completion_tokens: Math.max(1, count) };
  return { ...u, total_tokens: u.total_tokens ?? u.prompt_tokens + u.completion_tokens };
}

function header(c: Completion): Record<string, unknown> {
  return { id: c.id, created: c.created, model: c.model, system_fingerprint: null };
}

/** The answer as one `chat.completion` body (a request without `stream: true`). */
export function completionBody(c: Completion): unknown {
  const message = {
    role: 'assistant',
    content: c.content ?? null,
    refusal: null,
    ...(c.toolCalls.length > 0
      ? {
          tool_calls: c.toolCalls.map((t) => ({
            id: t.id,
            type: 'function',
            function: { name: t.name, arguments: t.arguments },
          })),
        }
      : {}),
    ...(c.reasoning !== undefined ? { reasoning_content: c.reasoning } : {}),
  };
  return {
    ...header(c),
    object: 'chat.completion',
    choices: [{ index: 0, message, logprobs: null, finish_reason: c.finishReason }],
    usage: c.usage,
  };
}

/**
 * The answer as `chat.completion.chunk` events: the role, each piece, then the finish reason. With `includeUsage` (the
 * request's `stream_options.include_usage`) every chunk has `usage: null` and a last chunk without choices carries it.
 */
export function completionChunks(c: Completion, pieces: Pieces, includeUsage: boolean): Frame[] {
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null): unknown => ({
    ...header(c),
    object: 'chat.completion.chunk',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    ...(includeUsage ? { usage: null } : {}),
  });
  const frames: Frame[] = [{ data: chunk({ role: 'assistant', content: '', refusal: null }), text: '' }];
  for (const p of pieces.reasoning) frames.push({ data: chunk({ reasoning_content: p }), text: p });
  for (const p of pieces.content) frames.push({ data: chunk({ content: p }), text: p });
  c.toolCalls.forEach((t, i) => {
    frames.push({
      data: chunk({
        tool_calls: [{ index: i, id: t.id, type: 'function', function: { name: t.name, arguments: '' } }],
      }),
      text: '',
    });
    for (const p of pieces.args[i])
      frames.push({ data: chunk({ tool_calls: [{ index: i, function: { arguments: p } }] }), text: p });
  });
  frames.push({ data: chunk({}, c.finishReason), text: '' });
  if (includeUsage) {
    frames.push({ data: { ...header(c), object: 'chat.completion.chunk', choices: [], usage: c.usage }, text: '' });
  }
  return frames;
}

const ERROR_KINDS: Record<number, [type: string, code: string | null]> = {
  400: ['invalid_request_error', null],
  401: ['invalid_request_error', 'invalid_api_key'],
  429: ['requests', 'rate_limit_exceeded'],
};

/** An error body as OpenAI sends it for `status`, so the client raises the error class it would for the real API. */
export function errorBody(status: number, message: string): unknown {
  const [type, code] =
    ERROR_KINDS[status] ?? (status >= 500 ? ['server_error', null] : ['invalid_request_error', null]);
  return { error: { message, type, param: null, code } };
}
