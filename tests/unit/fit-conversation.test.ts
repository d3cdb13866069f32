// Fitting a session's earlier conversation into a run's budget: large parts shortened oldest first, then the oldest
// messages dropped up to a user message, so no tool result is ever left without its call.
import type { ChatMessage } from '../../common';
import { fitConversation } from '../../stores/conversation';

const size = (ms: ChatMessage[]) => Buffer.byteLength(JSON.stringify(ms));
const turn = (i: number, bytes: number): ChatMessage[] => [
  { role: 'user', content: `task ${i}` },
  {
    role: 'assistant',
    content: null,
    toolCalls: [
      { id: `c${i}`, name: 'file_write', arguments: JSON.stringify({ path: `f${i}`, content: 'x'.repeat(bytes) }) },
    ],
  },
  { role: 'tool', content: 'y'.repeat(bytes), toolCallId: `c${i}`, name: 'file_write' },
  { role: 'assistant', content: `done ${i}` },
];

describe('fitConversation', () => {
  it('returns a conversation that fits unchanged', () => {
    const messages = turn(0, 100);
    expect(fitConversation(messages, 10_000)).toBe(messages);
  });

  it('shortens the oldest large parts first and keeps the newest whole when that is enough', () => {
    const messages = [...turn(0, 10_000), ...turn(1, 10_000)];
    const fitted = fitConversation(messages, 25_000);
    expect(size(fitted)).toBeLessThanOrEqual(25_000);
    expect(fitted).toHaveLength(8);
    expect(JSON.parse(fitted[1].toolCalls![0].arguments)).toEqual({
      path: 'f0',
      content: expect.stringMatching(/^\[10000 bytes of an earlier run/),
    });
    expect(fitted[2].content).toMatch(/^y{200}…\n\[10000 bytes/);
    expect(fitted.slice(4)).toEqual(messages.slice(4));
  });

  it('drops the oldest messages, up to a user message, when shortening is not enough', () => {
    const messages = Array.from({ length: 40 }, (_, i) => turn(i, 100)).flat();
    const fitted = fitConversation(messages, 2_000);
    expect(size(fitted)).toBeLessThanOrEqual(2_000);
    expect(fitted[0].role).toBe('user');
    expect(fitted.at(-1)).toEqual({ role: 'assistant', content: 'done 39' });
  });
});
