// Sequential and parallel agents on a real dev server (docs/ARCHITECTURE.md, "Workflow agents and operator control"): a
// sequence runs its sub-agents once, in order, each seeing the state the earlier ones wrote; a parallel agent starts
// every branch at once (one workflow task, overlapping model calls), gathers results in order and reports a failing
// branch in its slot without losing the others. Sub-agents keep their own step budgets.
import { parallelAgent, sequentialAgent } from '../../common';
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { testTools } from '../fixtures/test-tools';
import { offeredTools } from '../helpers/agent-runs';
import { childStarts, eventsOf, expectStoredLogs, readStream } from '../helpers/nested-runs';
import { useTestBed } from '../helpers/test-bed';
import {
  agentKey,
  agentOfRequest,
  agentStates,
  requestsOfAgent,
  subAgent,
  systemPrompt,
} from '../helpers/workflow-agents';

describe('workflow agents', () => {
  const bed = useTestBed({ tools: testTools });

  describe('sequential agent', () => {
    it('runs its sub-agents once, in order, each later one seeing the outputKeys of the earlier ones', async () => {
      bed.server.scriptFor(agentKey('research'), text('facts about otters'));
      bed.server.scriptFor(agentKey('outline'), text('1. habitat 2. diet'));
      bed.server.scriptFor(agentKey('write'), text('Otters live by rivers and eat fish.'));
      const seq = sequentialAgent({
        name: 'pipeline',
        subAgents: [
          subAgent('research', { outputKey: 'facts' }),
          subAgent('outline', { instructions: 'Outline these facts: <<{facts}>>', outputKey: 'outline' }),
          subAgent('write', { instructions: 'Write from <<{facts}>> following <<{outline}>>', outputKey: 'article' }),
        ],
      });

      const run = await bed.agio.start(seq, 'otters');
      const [events, output] = await Promise.all([readStream(bed.client, run.runId), run.result()]);

      expect(output).toMatchObject({ terminationReason: 'completed', response: 'Otters live by rivers and eat fish.' });
      expect(output.state).toEqual({
        facts: 'facts about otters',
        outline: '1. habitat 2. diet',
        article: 'Otters live by rivers and eat fish.',
      });
      expect(bed.server.requests.map(agentOfRequest)).toEqual(['research', 'outline', 'write']);
      expect(systemPrompt(requestsOfAgent(bed.server, 'outline')[0])).toContain(
        'Outline these facts: <<facts about otters>>',
      );
      expect(systemPrompt(requestsOfAgent(bed.server, 'write')[0])).toContain(
        'Write from <<facts about otters>> following <<1. habitat 2. diet>>',
      );
      expect(agentStates(events)).toEqual([
        { currentSubAgent: 'research' },
        { currentSubAgent: 'outline' },
        { currentSubAgent: 'write' },
      ]);
      // One child after the other: each completed before the next started.
      const ids = childStarts(await run.workflow.fetchHistory()).map((c) => c.workflowId);
      expect(ids).toEqual(['0-research', '1-outline', '2-write'].map((s) => `${run.runId}/seq/${s}`));
      for (let i = 1; i < ids.length; i++) {
        const previousEnd = eventsOf(events, ids[i - 1]).at(-1)!;
        expect(previousEnd.type).toBe('RUN_COMPLETED');
        // Stream positions: a child that keeps its own log has its own offsets.
        expect(events.indexOf(eventsOf(events, ids[i])[0])).toBeGreaterThan(events.indexOf(previousEnd));
      }
      expect(events.at(-1)).toMatchObject({
        type: 'RUN_COMPLETED',
        depth: 0,
        data: { terminationReason: 'completed' },
      });
      // As a root it filled its event log, and each child its own: a finished run is read from there. (This stream was
      // read without the stores, so its last page may come from a replay, which can time an event that follows a
      // local activity a few ms differently: timestamps are left out of the comparison.)
      await expectStoredLogs(bed.worker.stores.events, 'default', events);
    });

    it("keeps a sub-agent's own step budget instead of the enclosing run's", async () => {
      bed.server.scriptFor(
        agentKey('brief'),
        toolCalls([toolCall('echo', { text: 'once' })]),
        text('summary after one step'),
      );
      const seq = sequentialAgent({
        name: 'budgeted',
        subAgents: [subAgent('brief', { tools: ['echo'], maxSteps: 1 })],
      });

      const run = await bed.agio.start(seq, 'go', { limits: { maxSteps: 5 } });
      const [events, output] = await Promise.all([readStream(bed.client, run.runId), run.result()]);

      expect(output.response).toBe('summary after one step');
      const [first, last] = requestsOfAgent(bed.server, 'brief');
      expect(offeredTools(first)).toEqual(['echo']);
      // The second call is the max_steps summary: no tools offered.
      expect(offeredTools(last)).toEqual([]);
      expect(events.find((e) => e.runId === `${run.runId}/seq/0-brief` && e.type === 'RUN_COMPLETED')).toMatchObject({
        data: { terminationReason: 'max_steps' },
      });
    });
  });

  describe('parallel agent', () => {
    /** When each request arrived and when its last chunk was written, by agent. */
    function trackRequests(): Map<string, { receivedAt: number; lastChunkAt: number }> {
      const times = new Map<string, { receivedAt: number; lastChunkAt: number }>();
      bed.server.onChunk = ({ requestIndex, writtenAt }) => {
        const request = bed.server.requests[requestIndex];
        times.set(agentOfRequest(request)!, { receivedAt: request.receivedAt, lastChunkAt: writtenAt });
      };
      return times;
    }

    it('runs all branches at once and gathers their results in order', async () => {
      const slow = { chunkSize: 2, delayMs: 60 };
      bed.server.scriptFor(agentKey('north'), text('north looks clear today', slow));
      bed.server.scriptFor(agentKey('south'), text('south has some rain now', slow));
      bed.server.scriptFor(agentKey('west'), text('west is windy this time', slow));
      const times = trackRequests();
      const fan = parallelAgent({
        name: 'forecast',
        subAgents: [
          subAgent('north', { outputKey: 'n' }),
          subAgent('south', { outputKey: 's' }),
          subAgent('west', { outputKey: 'w' }),
        ],
      });

      const run = await bed.agio.start(fan, 'weather?');
      const [events, output] = await Promise.all([readStream(bed.client, run.runId), run.result()]);

      expect(output.terminationReason).toBe('completed');
      expect(output.response).toBe(
        '[north]\nnorth looks clear today\n\n[south]\nsouth has some rain now\n\n[west]\nwest is windy this time',
      );
      expect(output.state).toEqual({
        n: 'north looks clear today',
        s: 'south has some rain now',
        w: 'west is windy this time',
      });
      // The three children were started by one workflow task…
      const starts = childStarts(await run.workflow.fetchHistory());
      expect(starts.map((c) => c.workflowId)).toEqual(
        ['0-north', '1-south', '2-west'].map((s) => `${run.runId}/branch/${s}`),
      );
      expect(new Set(starts.map((c) => c.workflowTaskCompletedEventId)).size).toBe(1);
      // …and the model saw all three requests before it finished answering any of them.
      const spans = [...times.values()];
      expect(spans).toHaveLength(3);
      expect(Math.max(...spans.map((s) => s.receivedAt))).toBeLessThan(Math.min(...spans.map((s) => s.lastChunkAt)));
      expect(agentStates(events)).toEqual([{ currentSubAgent: undefined }]);
      expect(events.find((e) => e.type === 'AGENT_STATE')?.data).toEqual({ branches: ['north', 'south', 'west'] });
    });

    it('gives each branch an equal share of what is left of the token budget, so branches together cannot overspend it', async () => {
      // 100 tokens for two branches: 50 each. A branch that spends 60 on its first call stops there; with the whole
      // budget each (100) it would have gone on to call its tool.
      const spend = toolCalls([toolCall('echo', { text: 'more' })], {
        content: 'partial',
        usage: { prompt_tokens: 55, completion_tokens: 5 },
      });
      bed.server.scriptFor(agentKey('east'), spend);
      bed.server.scriptFor(agentKey('west'), spend);
      const fan = parallelAgent({
        name: 'budgeted',
        subAgents: [subAgent('east', { tools: ['echo'] }), subAgent('west', { tools: ['echo'] })],
      });

      const run = await bed.agio.start(fan, 'go', { limits: { maxTotalTokens: 100 } });
      const [events, output] = await Promise.all([readStream(bed.client, run.runId), run.result()]);

      expect(requestsOfAgent(bed.server, 'east')).toHaveLength(1);
      expect(requestsOfAgent(bed.server, 'west')).toHaveLength(1);
      const ends = events.filter((e) => e.depth === 1 && e.type === 'RUN_COMPLETED');
      expect(ends.map((e) => (e.data as { terminationReason?: string }).terminationReason)).toEqual([
        'max_tokens',
        'max_tokens',
      ]);
      expect(output.usage.totalTokens).toBe(120);
    });

    it('reports a branch whose model refuses it (401) in its slot, with an ERROR event, and keeps the others', async () => {
      bed.server.scriptFor(agentKey('left'), text('left result', { chunkSize: 3, delayMs: 30 }));
      bed.server.scriptFor(agentKey('middle'), { error: { status: 401 } });
      bed.server.scriptFor(agentKey('right'), text('right result', { chunkSize: 3, delayMs: 30 }));
      const fan = parallelAgent({
        name: 'partial',
        subAgents: [subAgent('left'), subAgent('middle'), subAgent('right')],
      });

      const run = await bed.agio.start(fan, 'go');
      const [events, output] = await Promise.all([readStream(bed.client, run.runId), run.result()]);

      expect(output.terminationReason).toBe('completed');
      const [left, middle, right] = output.response.split('\n\n');
      expect(left).toBe('[left]\nleft result');
      expect(right).toBe('[right]\nright result');
      expect(middle.startsWith('[middle]\n')).toBe(true);
      expect(JSON.parse(middle.slice('[middle]\n'.length))).toEqual({
        unavailable: true,
        error: expect.stringContaining('401'),
      });
      expect(events.filter((e) => e.type === 'ERROR')).toEqual([
        expect.objectContaining({
          depth: 0,
          runId: run.runId,
          data: { branch: 'middle', error: expect.stringContaining('401') },
        }),
      ]);
      expect(events.find((e) => e.runId === `${run.runId}/branch/1-middle` && e.type === 'RUN_FAILED')).toMatchObject({
        depth: 1,
      });
      expect(events.at(-1)).toMatchObject({ type: 'RUN_COMPLETED', depth: 0 });
      expect(requestsOfAgent(bed.server, 'middle')).toHaveLength(1);
    });
  });
});
