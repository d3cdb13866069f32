// Pause and resume of a loop from outside the process on a real dev server (docs/ARCHITECTURE.md, "Workflow agents and
// operator control"): POST /runs/:id/pause and /resume and GET /runs/:id/state of the HTTP bridge, and the `pause` /
// `resume` signals and the `state` query of the Temporal CLI, park and resume the run as the AgioClient does
// (run-control-pause.test.ts) and name who asked.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { findBinary } from '../../devkit/install-binary';
import { TEMPORAL_CLI } from '../../devkit/temporal-server';
import { request } from '../helpers/bridge';
import { readStream } from '../helpers/nested-runs';
import { startSlowLoop, watchAgentStreams } from '../helpers/run-control';
import { useTestBed } from '../helpers/test-bed';
import { testEnv } from '../helpers/test-env';
import { requestsOfAgent, waitFor } from '../helpers/workflow-agents';

const TOKEN = 'test-token';
const run = promisify(execFile);

describe('pause and resume of a loop from outside the process', () => {
  const bed = useTestBed({ bridge: true });
  const streams = watchAgentStreams(bed);

  describe('through the HTTP bridge', () => {
    it('pauses with POST /runs/:id/pause (200 once parked), shows GET /runs/:id/state, and resumes with POST /runs/:id/resume', async () => {
      const handle = await startSlowLoop(bed, 'over-http', bed.bridge.agio);
      await streams.streaming('A');

      const paused = await request(`${bed.bridge.url}/runs/${handle.runId}/pause`, {
        token: TOKEN,
        body: { reason: 'http pause' },
      });
      expect(paused).toEqual({
        status: 200,
        body: { paused: true, parked: true, pausedBy: 'api:default', pauseReason: 'http pause' },
      });
      const state = await request(`${bed.bridge.url}/runs/${handle.runId}/state`, { token: TOKEN });
      expect(state).toMatchObject({
        status: 200,
        body: {
          runId: handle.runId,
          kind: 'loop',
          status: 'running',
          paused: true,
          parked: true,
          currentSubAgent: 'B',
          timesLooped: 0,
        },
      });
      expect(requestsOfAgent(bed.server, 'B')).toEqual([]);

      const resumed = await request(`${bed.bridge.url}/runs/${handle.runId}/resume`, {
        token: TOKEN,
        body: { reason: 'http resume' },
      });
      expect(resumed).toEqual({ status: 200, body: { paused: false, parked: false } });
      const [events, output] = await Promise.all([readStream(bed.client, handle.runId), handle.result()]);

      expect(output.response).toBe('B done');
      expect(events.find((e) => e.type === 'RUN_PAUSED')).toMatchObject({
        depth: 0,
        data: { reason: 'http pause', by: 'api:default' },
      });
      expect(events.find((e) => e.type === 'RUN_RESUMED')).toMatchObject({
        depth: 0,
        data: { reason: 'http resume', by: 'api:default' },
      });
      expect(await request(`${bed.bridge.url}/runs/${handle.runId}/pause`, { token: TOKEN, body: {} })).toMatchObject({
        status: 409,
        body: { error: { code: 'run_not_running' } },
      });
    });
  });

  describe('through the Temporal CLI', () => {
    const temporal = (...args: string[]) =>
      run(findBinary(TEMPORAL_CLI)!, [...args, '--address', testEnv('temporalAddress')], { timeout: 30_000 });
    const signal = (workflowId: string, name: string, input: object) =>
      temporal('workflow', 'signal', '--workflow-id', workflowId, '--name', name, '--input', JSON.stringify(input));

    it('pauses with `temporal workflow signal --name pause`, reads `--type state` and resumes with `--name resume`', async () => {
      const handle = await startSlowLoop(bed, 'over-cli');
      await streams.streaming('A');

      await signal(handle.runId, 'pause', { reason: 'cli', by: 'ops' });
      const state = await waitFor('the CLI to report the run parked', async () => {
        const { stdout } = await temporal(
          'workflow',
          'query',
          '--workflow-id',
          handle.runId,
          '--type',
          'state',
          '--output',
          'json',
        );
        const parsed = JSON.parse(stdout) as { queryResult: { paused: boolean; parked: boolean }[] };
        return parsed.queryResult[0].parked ? parsed.queryResult[0] : undefined;
      });
      expect(state).toMatchObject({
        paused: true,
        parked: true,
        pausedBy: 'ops',
        pauseReason: 'cli',
        currentSubAgent: 'B',
        kind: 'loop',
      });
      expect(requestsOfAgent(bed.server, 'B')).toEqual([]);

      await signal(handle.runId, 'resume', { by: 'ops' });
      const [events, output] = await Promise.all([readStream(bed.client, handle.runId), handle.result()]);

      expect(output.response).toBe('B done');
      expect(events.find((e) => e.type === 'RUN_PAUSED')).toMatchObject({
        depth: 0,
        data: { reason: 'cli', by: 'ops' },
      });
      expect(events.find((e) => e.type === 'RUN_RESUMED')).toMatchObject({ depth: 0, data: { by: 'ops' } });
    });
  });
});
