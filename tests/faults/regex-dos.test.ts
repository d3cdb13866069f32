// Patterns built to make a backtracking regex engine take seconds (ReDoS) in grep and glob, while another run streams
// on the same worker: the searches answer at once (ripgrep and a linear-time glob matcher, off the event loop) and
// the other run's deltas keep arriving.
import type { AgioEvent } from '../../common';
import { defineAgent } from '../../common';
import { sentMessages, sentToolResult } from '../helpers/agent-runs';
import { text, toolCall, toolCalls, type RecordedRequest, type ScriptedTurn } from '../../devkit/scripted-model-server';
import { useTestBed } from '../helpers/test-bed';

jest.setTimeout(120_000);

const EVIL_LINE = `${'a'.repeat(32)}!`;
const EVIL_NAME = 'a'.repeat(40);
const EVIL_GLOB = `${'a*'.repeat(12)}b`;

const streamer = defineAgent({ name: 'streamer', instructions: 'stream slowly' });
const searcher = defineAgent({
  name: 'searcher',
  instructions: 'search the workspace',
  tools: ['file_write', 'grep', 'glob'],
});

/** The searcher's turns: seed the evil files, search them, answer. The streamer: one slow answer. */
function route(req: RecordedRequest): ScriptedTurn {
  const messages = sentMessages(req);
  if (messages[0]?.content?.includes('stream slowly')) return text('tick '.repeat(80), { chunkSize: 5, delayMs: 100 });
  const toolResults = messages.filter((m) => m.role === 'tool').length;
  if (toolResults === 0)
    return toolCalls([
      toolCall('file_write', { path: 'evil.txt', content: `${EVIL_LINE}\n` }, { id: 'seed_line' }),
      toolCall('file_write', { path: EVIL_NAME, content: 'x' }, { id: 'seed_name' }),
    ]);
  if (toolResults === 2)
    return toolCalls([
      toolCall('grep', { pattern: '^(a+)+$' }, { id: 'redos_grep' }),
      toolCall('glob', { pattern: EVIL_GLOB }, { id: 'redos_glob' }),
      toolCall('grep', { pattern: '^a+!$' }, { id: 'real_grep' }),
    ]);
  return text('searched');
}

describe('regex denial of service', () => {
  const bed = useTestBed();

  it('grep and glob answer ReDoS patterns at once while another run keeps streaming', async () => {
    bed.server.script(...Array.from({ length: 4 }, () => route));
    const slow = await bed.agio.start(streamer, 'go');
    const deltaTimes: number[] = [];
    const streamed = (async () => {
      const events: AgioEvent[] = [];
      for await (const event of slow.stream()) {
        events.push(event);
        if (event.type === 'STEP_DELTA') deltaTimes.push(Date.now());
      }
      return events;
    })();
    while (deltaTimes.length === 0) await new Promise((r) => setTimeout(r, 20));

    const searchStarted = Date.now();
    const search = await (await bed.agio.start(searcher, 'find things')).result();
    const searchTook = Date.now() - searchStarted;

    expect(search.terminationReason).toBe('completed');
    const last = bed.server.requests.find((r) => sentMessages(r).filter((m) => m.role === 'tool').length === 5)!;
    expect(sentToolResult(last, 'redos_grep')).toMatch(/^No matches/);
    expect(sentToolResult(last, 'redos_glob')).toMatch(/^No files match/);
    expect(sentToolResult(last, 'real_grep')).toBe(`evil.txt:1:${EVIL_LINE}`);
    expect(searchTook).toBeLessThan(15_000);
    // The streaming run went on meanwhile, and finished.
    const events = await streamed;
    expect(events.at(-1)?.type).toBe('RUN_COMPLETED');
    const during = deltaTimes.filter((t) => t >= searchStarted && t <= searchStarted + searchTook);
    const gaps = deltaTimes.slice(1).map((t, i) => t - deltaTimes[i]);
    expect(Math.max(...gaps)).toBeLessThan(4_000);
    expect(during.length).toBeGreaterThan(0);
  });
});
