// The peer comparison: @temporalio/openai-agents (TemporalOpenAIRunner). It is not a dependency of this repo;
// this entry records whether it is importable here and, if not, exactly why it is not benchmarked.
import type { Benchmark } from './report';

/** What `npm view @temporalio/openai-agents` showed when this benchmark was written (see docs/PERFORMANCE.md). */
export const PEER_FINDINGS = {
  package: '@temporalio/openai-agents',
  publishedVersions: ['1.22.0', '1.23.0'],
  latest: '1.23.0',
  dependencies: '@temporalio/{workflow,worker,activity,common,plugin,workflow-streams} pinned exactly to the package version (1.23.0 for the latest)',
  peerDependencies: '@openai/agents-core ~0.11.6, @openai/agents-openai ~0.11.6, @opentelemetry/sdk-trace-base ^1.25.1, openai ^6.35.0',
  pinnedHere: '@temporalio/* 1.24.0',
};

export const peer: Benchmark = {
  id: 'PEER',
  title: '@temporalio/openai-agents (TemporalOpenAIRunner)',
  async run() {
    let installed: string | undefined;
    try {
      installed = require.resolve('@temporalio/openai-agents');
    } catch {
      installed = undefined;
    }
    return {
      status: 'not_run',
      rows: [],
      notes: [
        `peer not benchmarked: ${installed ? `found at ${installed}, but ` : ''}no release of @temporalio/openai-agents exists for the pinned Temporal SDK 1.24.0 ` +
          `(published: ${PEER_FINDINGS.publishedVersions.join(', ')}); each release pins @temporalio/worker, workflow, activity, common exactly to its own version, ` +
          'so installing 1.23.0 here would nest a second Temporal SDK (1.23.0, with its own native core-bridge) beside the pinned 1.24.0 one: its plugin targets a 1.23 Worker, ' +
          'and its workflow code would need @temporalio/workflow 1.23 inside a bundle that Agio builds with 1.24. It also needs @openai/agents-core/-openai 0.11 as peers. ' +
          'It was therefore not added to package.json.',
      ],
      data: { ...PEER_FINDINGS, resolvable: Boolean(installed) },
    };
  },
};
