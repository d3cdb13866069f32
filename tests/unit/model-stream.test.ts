// ChatStreamAssembler: turns the chunks of one streamed Chat Completion into content, reasoning, tool calls
// (reassembled by index), usage and a finish reason, and reports what each chunk added.
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { ChatStreamAssembler } from '../../activities/model/completion-stream';

type Delta = ChatCompletionChunk.Choice.Delta & { reasoning_content?: string | null; reasoning?: string | null };

function chunk(delta: Delta, finishReason: ChatCompletionChunk.Choice['finish_reason'] = null): ChatCompletionChunk {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 0,
    model: 'm',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
  };
}

function usageChunk(prompt: number, completion: number, total?: number): ChatCompletionChunk {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 0,
    model: 'm',
    choices: [],
    usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: total as number },
  };
}

function toolDelta(index: number, part: { id?: string; name?: string; arguments?: string }): Delta {
  return {
    tool_calls: [
      {
        index,
        ...(part.id ? { id: part.id, type: 'function' as const } : {}),
        function: {
          ...(part.name !== undefined ? { name: part.name } : {}),
          ...(part.arguments !== undefined ? { arguments: part.arguments } : {}),
        },
      },
    ],
  };
}

describe('ChatStreamAssembler', () => {
  it('accumulates content across chunks and returns each chunk’s content as its delta', () => {
    const a = new ChatStreamAssembler();
    expect(a.add(chunk({ content: 'Hel' }))).toEqual({ content: 'Hel' });
    expect(a.add(chunk({ content: 'lo, ' }))).toEqual({ content: 'lo, ' });
    expect(a.add(chunk({ content: 'world' }))).toEqual({ content: 'world' });
    expect(a.content).toBe('Hello, world');
    expect(a.reasoningContent).toBe('');
    expect(a.toolCalls('s')).toEqual([]);
    expect(a.chunks).toBe(3);
  });

  it('returns undefined for a role-only opening chunk and for an empty delta', () => {
    const a = new ChatStreamAssembler();
    expect(a.add(chunk({ role: 'assistant', content: '', refusal: null }))).toBeUndefined();
    expect(a.add(chunk({}))).toBeUndefined();
    expect(a.content).toBe('');
    expect(a.chunks).toBe(2);
  });

  it('accumulates reasoning_content and the alternative `reasoning` field separately from content', () => {
    const a = new ChatStreamAssembler();
    expect(a.add(chunk({ reasoning_content: 'think ' }))).toEqual({ reasoningContent: 'think ' });
    expect(a.add(chunk({ reasoning: 'hard' }))).toEqual({ reasoningContent: 'hard' });
    expect(a.add(chunk({ content: '42' }))).toEqual({ content: '42' });
    expect(a.reasoningContent).toBe('think hard');
    expect(a.content).toBe('42');
  });

  it('reassembles tool-call arguments split across chunks by index, even when calls arrive interleaved', () => {
    const a = new ChatStreamAssembler();
    a.add(chunk(toolDelta(0, { id: 'call_a', name: 'read_file', arguments: '' })));
    a.add(chunk(toolDelta(1, { id: 'call_b', name: 'ls', arguments: '{"pa' })));
    a.add(chunk(toolDelta(0, { arguments: '{"path":' })));
    a.add(chunk(toolDelta(1, { arguments: 'th":"."}' })));
    a.add(chunk(toolDelta(0, { arguments: '"a.txt"}' })));
    a.add(chunk({}, 'tool_calls'));
    expect(a.toolCalls('run:1')).toEqual([
      { id: 'call_a', name: 'read_file', arguments: '{"path":"a.txt"}' },
      { id: 'call_b', name: 'ls', arguments: '{"path":"."}' },
    ]);
    expect(a.finishReason).toBe('tool_calls');
  });

  it('returns tool calls in index order whatever order their first chunks came in', () => {
    const a = new ChatStreamAssembler();
    a.add(chunk(toolDelta(2, { id: 'c2', name: 'two', arguments: '{}' })));
    a.add(chunk(toolDelta(0, { id: 'c0', name: 'zero', arguments: '{}' })));
    a.add(chunk(toolDelta(1, { id: 'c1', name: 'one', arguments: '{}' })));
    expect(a.toolCalls('s').map((c) => c.name)).toEqual(['zero', 'one', 'two']);
  });

  it('reports each tool-call piece in the chunk delta with its index', () => {
    const a = new ChatStreamAssembler();
    expect(a.add(chunk(toolDelta(0, { id: 'call_a', name: 'ls', arguments: '' })))).toEqual({
      toolCalls: [{ index: 0, id: 'call_a', name: 'ls', arguments: '' }],
    });
    expect(a.add(chunk(toolDelta(0, { arguments: '{}' })))).toEqual({
      toolCalls: [{ index: 0, id: undefined, name: undefined, arguments: '{}' }],
    });
  });

  it('derives a stable id from the step id and index for calls the provider sent without one', () => {
    const build = () => {
      const a = new ChatStreamAssembler();
      a.add(chunk(toolDelta(0, { name: 'ls', arguments: '{}' })));
      a.add(chunk(toolDelta(1, { id: 'call_real', name: 'ls', arguments: '{}' })));
      a.add(chunk(toolDelta(2, { name: 'ls', arguments: '{}' })));
      return a;
    };
    const ids = build()
      .toolCalls('run-7:3')
      .map((c) => c.id);
    expect(ids).toEqual(['run-7:3:call0', 'call_real', 'run-7:3:call2']);
    // The same stream (a retry, a replay) yields the same ids.
    expect(
      build()
        .toolCalls('run-7:3')
        .map((c) => c.id),
    ).toEqual(ids);
    expect(new Set(ids).size).toBe(3);
  });

  it('keeps an id that arrives after the first chunk of a call', () => {
    const a = new ChatStreamAssembler();
    a.add(chunk(toolDelta(0, { name: 'ls', arguments: '{' })));
    a.add(chunk(toolDelta(0, { id: 'late_id', arguments: '}' })));
    expect(a.toolCalls('s')).toEqual([{ id: 'late_id', name: 'ls', arguments: '{}' }]);
  });

  it('reads usage from the final chunk whose choices are empty, without a delta', () => {
    const a = new ChatStreamAssembler();
    a.add(chunk({ content: 'hi' }));
    a.add(chunk({}, 'stop'));
    expect(a.add(usageChunk(12, 3, 15))).toBeUndefined();
    expect(a.usage).toEqual({ promptTokens: 12, completionTokens: 3, totalTokens: 15 });
    expect(a.finishReason).toBe('stop');
    expect(a.content).toBe('hi');
    expect(a.chunks).toBe(3);
  });

  it('computes total tokens when the provider leaves total_tokens out', () => {
    const a = new ChatStreamAssembler();
    a.add(usageChunk(7, 5));
    expect(a.usage).toEqual({ promptTokens: 7, completionTokens: 5, totalTokens: 12 });
  });

  it('leaves usage undefined while chunks carry `usage: null`', () => {
    const a = new ChatStreamAssembler();
    a.add({ ...chunk({ content: 'x' }), usage: null });
    expect(a.usage).toBeUndefined();
  });

  it('records the finish reason from a chunk that also carries content', () => {
    const a = new ChatStreamAssembler();
    expect(a.finishReason).toBeNull();
    expect(a.add(chunk({ content: 'end' }, 'length'))).toEqual({ content: 'end' });
    expect(a.finishReason).toBe('length');
  });

  it('returns one delta holding content, reasoning and tool calls when a chunk has all three', () => {
    const a = new ChatStreamAssembler();
    const delta = a.add(
      chunk({ content: 'c', reasoning_content: 'r', ...toolDelta(0, { id: 'x', name: 'n', arguments: '{}' }) }),
    );
    expect(delta).toEqual({
      content: 'c',
      reasoningContent: 'r',
      toolCalls: [{ index: 0, id: 'x', name: 'n', arguments: '{}' }],
    });
  });
});
