// Tests of the scripted OpenAI-compatible server, driven through the real `openai` client so that every
// other test can trust that what the server sends is what OpenAI sends.
import OpenAI from 'openai';
import type { ChatCompletionChunk, ChatCompletionCreateParamsStreaming } from 'openai/resources/chat/completions';
import { ScriptedModelServer, text, toolCall, toolCalls } from '../../devkit/scripted-model-server';

let server: ScriptedModelServer;
let client: OpenAI;

beforeEach(async () => {
  server = await ScriptedModelServer.start();
  client = new OpenAI({ baseURL: server.baseURL, apiKey: 'test', maxRetries: 0 });
});

afterEach(async () => {
  await server.close();
});

const hello: ChatCompletionCreateParamsStreaming = {
  model: 'm',
  messages: [{ role: 'user', content: 'hi' }],
  stream: true,
};

async function collect(stream: AsyncIterable<ChatCompletionChunk>): Promise<ChatCompletionChunk[]> {
  const chunks: ChatCompletionChunk[] = [];
  for await (const c of stream) chunks.push(c);
  return chunks;
}

function contentOf(chunks: ChatCompletionChunk[]): string {
  return chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
}

/** Reassembles streamed tool calls by index, as consumers of the OpenAI stream do. */
function assembleToolCalls(chunks: ChatCompletionChunk[]): { id: string; name: string; arguments: string }[] {
  const calls: { id: string; name: string; arguments: string }[] = [];
  for (const c of chunks) {
    for (const d of c.choices[0]?.delta.tool_calls ?? []) {
      calls[d.index] ??= { id: '', name: '', arguments: '' };
      if (d.id) calls[d.index].id = d.id;
      if (d.function?.name) calls[d.index].name += d.function.name;
      calls[d.index].arguments += d.function?.arguments ?? '';
    }
  }
  return calls;
}

async function caught(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error('expected the promise to reject');
}

describe('ScriptedModelServer', () => {
  it('streams text in chunks that reassemble exactly, opening with an assistant role chunk and closing with finish_reason stop', async () => {
    const content = 'Hello, durable world! ünïcödé ✓';
    server.script(text(content, { chunkSize: 3 }));
    const chunks = await collect(await client.chat.completions.create(hello));
    expect(chunks[0].object).toBe('chat.completion.chunk');
    expect(chunks[0].choices[0].delta).toEqual({ role: 'assistant', content: '', refusal: null });
    expect(chunks.filter((c) => c.choices[0]?.delta.content).length).toBe(Math.ceil(content.length / 3));
    expect(contentOf(chunks)).toBe(content);
    const last = chunks[chunks.length - 1];
    expect(last.choices[0].delta).toEqual({});
    expect(last.choices[0].finish_reason).toBe('stop');
    expect(chunks.slice(0, -1).every((c) => c.choices[0].finish_reason === null)).toBe(true);
    expect(server.pending()).toBe(0);
  });

  it('streams reasoning as reasoning_content deltas before the content', async () => {
    server.script(text('42', { reasoning: 'think step by step' }));
    const chunks = await collect(await client.chat.completions.create(hello));
    const deltas = chunks.map((c) => c.choices[0].delta as { reasoning_content?: string; content?: string | null });
    expect(deltas.map((d) => d.reasoning_content ?? '').join('')).toBe('think step by step');
    const lastReasoning = deltas.map((d) => d.reasoning_content !== undefined).lastIndexOf(true);
    const firstContent = deltas.findIndex((d) => typeof d.content === 'string' && d.content.length > 0);
    expect(lastReasoning).toBeGreaterThan(0);
    expect(firstContent).toBeGreaterThan(lastReasoning);
    expect(contentOf(chunks)).toBe('42');
  });

  it('splits tool-call arguments across chunks that the openai client reassembles by index', async () => {
    server.script(
      toolCalls([
        toolCall('search', { query: 'temporal durable agents', limit: 5 }, { id: 'call_abc' }),
        toolCall('read_file', { path: '/tmp/x.txt' }),
      ]),
    );
    const chunks = await collect(await client.chat.completions.create(hello));
    const argChunks = chunks.filter((c) => c.choices[0]?.delta.tool_calls?.[0]?.function?.arguments);
    expect(argChunks.length).toBeGreaterThan(4);
    // Only the first chunk of each call carries id, type and name; later ones only carry argument pieces.
    const headers = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []).filter((d) => d.id);
    expect(headers).toEqual([
      { index: 0, id: 'call_abc', type: 'function', function: { name: 'search', arguments: '' } },
      {
        index: 1,
        id: expect.stringMatching(/^call_\d+$/),
        type: 'function',
        function: { name: 'read_file', arguments: '' },
      },
    ]);
    const calls = assembleToolCalls(chunks);
    expect(calls.map((c) => [c.name, JSON.parse(c.arguments)])).toEqual([
      ['search', { query: 'temporal durable agents', limit: 5 }],
      ['read_file', { path: '/tmp/x.txt' }],
    ]);
    expect(calls[0].id).toBe('call_abc');
    expect(chunks[chunks.length - 1].choices[0].finish_reason).toBe('tool_calls');
  });

  it('passes malformed tool-call arguments through verbatim', async () => {
    server.script(toolCalls([toolCall('broken', '{"a": 1,')]));
    const calls = assembleToolCalls(await collect(await client.chat.completions.create(hello)));
    expect(calls[0].arguments).toBe('{"a": 1,');
    expect(() => JSON.parse(calls[0].arguments) as unknown).toThrow();
  });

  it('sends a final usage chunk with empty choices only when stream_options.include_usage is set', async () => {
    server.script(text('abc', { usage: { prompt_tokens: 7, completion_tokens: 3 } }), text('abc'));
    const withUsage = await collect(
      await client.chat.completions.create({ ...hello, stream_options: { include_usage: true } }),
    );
    const last = withUsage[withUsage.length - 1];
    expect(last.choices).toEqual([]);
    expect(last.usage).toEqual({ prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 });
    expect(withUsage.slice(0, -1).every((c) => c.usage === null)).toBe(true);
    const without = await collect(await client.chat.completions.create(hello));
    expect(without.every((c) => c.usage === undefined && c.choices.length === 1)).toBe(true);
  });

  it('answers non-streaming requests with a chat.completion object including tool calls, reasoning and usage', async () => {
    server.script(toolCalls([toolCall('lookup', { id: 1 })], { content: 'let me check', reasoning: 'need data' }));
    const res = await client.chat.completions.create({ model: 'gpt-x', messages: [{ role: 'user', content: 'q' }] });
    expect(res.object).toBe('chat.completion');
    expect(res.model).toBe('gpt-x');
    const choice = res.choices[0];
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.role).toBe('assistant');
    expect(choice.message.content).toBe('let me check');
    expect((choice.message as { reasoning_content?: string }).reasoning_content).toBe('need data');
    expect(choice.message.tool_calls).toEqual([
      {
        id: expect.stringMatching(/^call_\d+$/),
        type: 'function',
        function: { name: 'lookup', arguments: '{"id":1}' },
      },
    ]);
    expect(res.usage?.total_tokens).toBe((res.usage?.prompt_tokens ?? 0) + (res.usage?.completion_tokens ?? 0));
  });

  it('surfaces a scripted 429 as RateLimitError with the retry-after header readable', async () => {
    server.script({ error: { status: 429, headers: { 'retry-after': '2' } } });
    const err = await caught(client.chat.completions.create(hello));
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
    const e = err as InstanceType<typeof OpenAI.RateLimitError>;
    expect(e.status).toBe(429);
    expect(e.headers?.get('retry-after')).toBe('2');
    expect(e.code).toBe('rate_limit_exceeded');
    expect(server.requests).toHaveLength(1);
  });

  it.each([
    [500, OpenAI.InternalServerError],
    [400, OpenAI.BadRequestError],
    [401, OpenAI.AuthenticationError],
  ])('surfaces a scripted %i as the matching APIError subclass', async (status, cls) => {
    server.script({ error: { status, body: { error: { message: `custom ${status}`, type: 'x', code: null } } } });
    const err = await caught(client.chat.completions.create(hello));
    expect(err).toBeInstanceOf(cls);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect((err as InstanceType<typeof OpenAI.APIError>).status).toBe(status);
    expect((err as Error).message).toContain(`custom ${status}`);
  });

  it('makes stream iteration throw after cutAfterChunks chunks, before any finish_reason', async () => {
    server.script(text('a fairly long answer that gets cut', { chunkSize: 2, cutAfterChunks: 3 }));
    const received: ChatCompletionChunk[] = [];
    const stream = await client.chat.completions.create(hello);
    const err = await caught(
      (async () => {
        for await (const c of stream) received.push(c);
      })(),
    );
    // undici reports the truncated chunked body as TypeError('terminated') caused by UND_ERR_SOCKET (a Node-realm
    // error, so it is matched by name rather than instanceof inside jest's sandbox); the client does not wrap it.
    expect(err).not.toBeInstanceOf(OpenAI.APIError);
    expect(err).toMatchObject({ name: 'TypeError', message: 'terminated', cause: { code: 'UND_ERR_SOCKET' } });
    expect(received).toHaveLength(3);
    expect(received.every((c) => c.choices[0].finish_reason === null)).toBe(true);
  });

  it('makes a non-JSON rawBody fail the client, streaming or not', async () => {
    server.script({ rawBody: '<html>bad gateway</html>' }, { rawBody: 'data: {not json\n\n' });
    // Matched by name: the non-streaming parse error comes from undici's Response.json(), outside jest's realm.
    const err = await caught(client.chat.completions.create({ model: 'm', messages: [] }));
    expect(err).toMatchObject({ name: 'SyntaxError' });
    const quiet = new OpenAI({ baseURL: server.baseURL, apiKey: 'test', maxRetries: 0, logLevel: 'off' });
    const stream = await quiet.chat.completions.create(hello);
    expect(await caught(collect(stream))).toMatchObject({ name: 'SyntaxError' });
  });

  it('records every request in order with its parsed body, headers and path', async () => {
    const tools = [
      { type: 'function' as const, function: { name: 'search', parameters: { type: 'object', properties: {} } } },
    ];
    server.script(text('one'), { error: { status: 500 } });
    await collect(
      await client.chat.completions.create({
        ...hello,
        messages: [
          { role: 'system', content: 'be brief' },
          { role: 'user', content: 'first' },
        ],
        tools,
      }),
    );
    await caught(client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'second' }] }));
    expect(server.requests).toHaveLength(2);
    const [first, second] = server.requests;
    expect(first.path).toBe('/v1/chat/completions');
    expect(first.body.messages).toEqual([
      { role: 'system', content: 'be brief' },
      { role: 'user', content: 'first' },
    ]);
    expect(first.body.tools).toEqual(tools);
    expect(first.body.stream).toBe(true);
    expect(first.headers.authorization).toBe('Bearer test');
    expect(second.body.messages[0].content).toBe('second');
    expect(second.receivedAt).toBeGreaterThanOrEqual(first.receivedAt);
    expect(server.unexpected).toHaveLength(0);
  });

  it('answers an unscripted request with HTTP 500 and records it in unexpected', async () => {
    server.script(text('only one'));
    await client.chat.completions.create({ model: 'm', messages: [] });
    const err = await caught(
      client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'extra' }] }),
    );
    expect(err).toBeInstanceOf(OpenAI.InternalServerError);
    expect((err as Error).message).toContain('scripted model: unexpected request #1');
    expect(server.unexpected).toHaveLength(1);
    expect(server.unexpected[0].body.messages[0].content).toBe('extra');
    expect(server.requests).toHaveLength(2);
  });

  it('uses the default turn when a queue is empty and counts pending turns', async () => {
    server.setDefault(text('fallback'));
    server.script(text('first'), text('second'));
    expect(server.pending()).toBe(2);
    const replies = [];
    for (let i = 0; i < 3; i++)
      replies.push((await client.chat.completions.create({ model: 'm', messages: [] })).choices[0].message.content);
    expect(replies).toEqual(['first', 'second', 'fallback']);
    expect(server.pending()).toBe(0);
    expect(server.unexpected).toHaveLength(0);
  });

  it('routes concurrent requests to per-key queues by model name or system-message content', async () => {
    server
      .scriptFor('model-a', text('from A', { firstChunkDelayMs: 50 }))
      .scriptFor('model-b', text('from B'))
      .scriptFor('[run:7]', text('from run 7'));
    const [a, b, c] = await Promise.all([
      client.chat.completions.create({ ...hello, model: 'model-a' }).then(collect),
      client.chat.completions.create({ ...hello, model: 'model-b' }).then(collect),
      client.chat.completions
        .create({
          ...hello,
          model: 'shared',
          messages: [
            { role: 'system', content: 'You are agent [run:7].' },
            { role: 'user', content: 'go' },
          ],
        })
        .then(collect),
    ]);
    expect([contentOf(a), contentOf(b), contentOf(c)]).toEqual(['from A', 'from B', 'from run 7']);
    expect(server.pending()).toBe(0);
  });

  it('lets a responder function compute the reply from the recorded request and its index', async () => {
    server.script((req, index) => text(`echo #${index}: ${req.body.messages.at(-1).content}`));
    const chunks = await collect(
      await client.chat.completions.create({ ...hello, messages: [{ role: 'user', content: 'ping' }] }),
    );
    expect(contentOf(chunks)).toBe('echo #0: ping');
  });

  it('calls onChunk after each chunk is written, honouring firstChunkDelayMs and delayMs', async () => {
    const seen: { requestIndex: number; chunkIndex: number; writtenAt: number; text: string }[] = [];
    server.onChunk = (info) => seen.push(info);
    server.script(text('abcdefgh', { chunkSize: 4, firstChunkDelayMs: 60, delayMs: 20 }));
    const started = Date.now();
    const chunks = await collect(await client.chat.completions.create(hello));
    expect(seen.map((s) => s.chunkIndex)).toEqual(chunks.map((_, i) => i));
    expect(seen.map((s) => s.text)).toEqual(['', 'abcd', 'efgh', '']);
    expect(seen.every((s) => s.requestIndex === 0)).toBe(true);
    expect(seen[0].writtenAt - started).toBeGreaterThanOrEqual(50);
    expect(seen[3].writtenAt - seen[0].writtenAt).toBeGreaterThanOrEqual(50);
  });

  it('lists models on GET /v1/models', async () => {
    const page = await client.models.list();
    expect(page.data.map((m) => m.id)).toEqual(['scripted-model']);
    expect(server.requests).toHaveLength(0);
  });

  it('lets a client abort a hanging request', async () => {
    server.script({ ...text('late'), hangMs: 10_000 });
    const controller = new AbortController();
    const pending = client.chat.completions.create(hello, { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    expect(await caught(pending)).toBeInstanceOf(OpenAI.APIUserAbortError);
  });

  it('resolves close() promptly even while a response is hanging', async () => {
    server.script({ hangMs: 60_000 });
    const pending = caught(client.chat.completions.create(hello));
    while (server.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
    const started = Date.now();
    await server.close();
    expect(Date.now() - started).toBeLessThan(1000);
    expect(await pending).toBeInstanceOf(OpenAI.APIConnectionError);
  });
});
