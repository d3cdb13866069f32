// Duplicate pauses are refused by the pause update's validator (docs/ARCHITECTURE.md, "Workflow agents and operator
// control"): an accepted pause update stays in flight until the run parks, and Temporal admits only 10 in-flight
// updates per workflow, so 15 pauses during a long model call used to lock out resume. Now one pause is accepted,
// the others get 409 already_paused at once, and resume and the rest of the run work as before.
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { loopAgent } from '../../common';
import { text } from '../../devkit/scripted-model-server';
import { request, type JsonResponse } from '../helpers/bridge';
import { watchAgentStreams } from '../helpers/run-control';
import { useTestBed } from '../helpers/test-bed';
import { agentKey, agentOfRequest, requestsOfAgent, subAgent } from '../helpers/workflow-agents';

const TOKEN = 'test-token';
/** A's answer streams for about four seconds (25 chunks, 160 ms apart). */
const SLOW = { chunkSize: 2, delayMs: 160 };
const SLOW_TEXT = 'A thinks slowly, very slowly, so very slowly.';

describe('duplicate pauses', () => {
  const bed = useTestBed({ bridge: true });
  const streams = watchAgentStreams(bed);

  it('accepts one of 15 concurrent pauses during a slow model call, refuses the others at once with 409, then resumes and completes', async () => {
    bed.server.scriptFor(agentKey('A'), text(SLOW_TEXT, SLOW));
    bed.server.scriptFor(agentKey('B'), text('B done'));
    const handle = await bed.agio.start(
      loopAgent({ name: 'busy', subAgents: [subAgent('A'), subAgent('B')], maxIterations: 1 }),
      'go',
    );
    await streams.streaming('A');

    const answeredAt: number[] = [];
    const pauses: JsonResponse[] = await Promise.all(
      Array.from({ length: 15 }, async (_, i) => {
        const res = await request(`${bed.bridge.url}/runs/${handle.runId}/pause`, {
          token: TOKEN,
          body: { reason: 'look' },
        });
        answeredAt[i] = Date.now();
        return res;
      }),
    );

    const accepted = pauses.filter((p) => p.status === 200 || p.status === 202);
    const refused = pauses.filter((p) => p.status === 409);
    expect(accepted).toHaveLength(1);
    expect(refused).toHaveLength(14);
    for (const r of refused) {
      expect(r.body.error.code).toBe('already_paused');
      expect(r.body.error.message).toMatch(/resume it first/);
    }
    // The refusals came while A was still streaming: they did not wait for the run to park.
    const refusedAt = pauses.map((p, i) => (p.status === 409 ? answeredAt[i] : 0)).filter(Boolean);
    expect(Math.max(...refusedAt)).toBeLessThan(streams.lastChunkAt.get('A')!);
    expect(accepted[0].body).toMatchObject({ paused: true, parked: true, pauseReason: 'look' });
    expect(requestsOfAgent(bed.server, 'B')).toEqual([]);

    // A parked run refuses another pause at once too (the client sees the validator's error), and stays paused.
    const again = await handle.pause({ by: 'late' }).catch((err: unknown) => err);
    expect(again).toBeInstanceOf(WorkflowUpdateFailedError);
    expect((again as WorkflowUpdateFailedError).cause).toMatchObject({ type: 'AlreadyPaused' });
    expect(await handle.state()).toMatchObject({ paused: true, parked: true, pausedBy: accepted[0].body.pausedBy });

    const resumed = await request(`${bed.bridge.url}/runs/${handle.runId}/resume`, { token: TOKEN, body: {} });
    expect(resumed).toMatchObject({ status: 200, body: { paused: false, parked: false } });
    const output = await handle.result();
    expect(output).toMatchObject({ terminationReason: 'max_iterations', response: 'B done' });
    expect(bed.server.requests.map(agentOfRequest)).toEqual(['A', 'B']);
  });
});
