// The scenarios recorded since release 0.1.0: runs of every workflow type that start, work and complete on one worker
// (tools, agents as tools, compaction, a model outage, deadlines, loops, sequences, branches).
import { asTool, defineAgent, loopAgent, parallelAgent, sequentialAgent } from '../../common';
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { member, refineLoopContinuingAsNew, scriptLeadAndLooker, type Scenario } from './scenario';

/** A run that lists the workspace, writes c.txt and reads it back (quick tools), then answers. */
const writeAndReadC = (): Pick<Scenario, 'script' | 'args'> => ({
  script: (model) =>
    model.script(
      toolCalls([toolCall('ls', {}), toolCall('file_write', { path: 'c.txt', content: 'gamma' })]),
      toolCalls([toolCall('file_read', { path: 'c.txt' })]),
      text('c.txt says gamma.'),
    ),
  args: [
    {
      agent: defineAgent({ name: 'reader', instructions: 'Read files.', tools: ['ls', 'file_write', 'file_read'] }),
      input: 'write and read c.txt',
    },
  ],
});

export const shortLivedScenarios: Scenario[] = [
  {
    // Started by name: the first run resolves the agent on the worker (local activity resolveAgent) and continues
    // as new as the agent's own type.
    name: 'agent-by-name',
    byName: true,
    script: (model) => model.script(text('hello, by name')),
    args: [{ agent: defineAgent({ name: 'named', instructions: 'You are named.' }), input: 'hi' }],
    recordings: [
      { name: 'agent-by-name', of: 'first run' },
      { name: 'agent-by-name-resolved', of: 'last run' },
    ],
  },
  {
    name: 'agent-run-parallel-tools',
    script: (model) =>
      model.script(
        toolCalls([
          toolCall('file_write', { path: 'a.txt', content: 'alpha' }),
          toolCall('file_write', { path: 'b.txt', content: 'beta' }),
        ]),
        toolCalls([toolCall('file_read', { path: 'a.txt' }), toolCall('ls', {})]),
        text('Wrote a.txt and b.txt.'),
      ),
    args: [
      {
        agent: defineAgent({ name: 'writer', instructions: 'Write files.', tools: ['file_write', 'file_read', 'ls'] }),
        input: 'write two files',
      },
    ],
  },
  {
    // Quick tools as local activities, and the root's event log with its tail written after the terminal event.
    name: 'agent-run-event-log',
    ...writeAndReadC(),
  },
  {
    // The same run on the lean step path: tools resolved locally, a turn's steps riding on the next model call.
    name: 'agent-run-lean-steps',
    ...writeAndReadC(),
  },
  {
    // An agent used as a tool (a child workflow), and a conversation passed to callModel by reference.
    name: 'agent-run-agent-tool',
    script: (model) => scriptLeadAndLooker(model, 'helper'),
    args: [
      {
        agent: defineAgent({
          name: 'lead',
          instructions: 'You are the lead.',
          tools: [asTool(member('helper'), { description: 'Looks around.' })],
        }),
        input: 'what is there?',
        context: { limits: { inlineModelInputBytes: 0 } },
      },
    ],
  },
  {
    // An agent used as a tool on the lean step path: the child's patch markers come first in its history too.
    name: 'agent-run-agent-tool-lean-steps',
    script: (model) => scriptLeadAndLooker(model, 'helper'),
    args: [
      {
        agent: defineAgent({
          name: 'lead',
          instructions: 'You are the lead.',
          tools: [asTool(member('helper'), { description: 'Looks around.' })],
        }),
        input: 'what is there?',
      },
    ],
  },
  {
    // A conversation compacted near its (lowered) threshold: older file contents stored and replaced by references.
    name: 'agent-run-compaction',
    script: (model) =>
      model.script(
        ...[0, 1, 2].map((i) =>
          toolCalls([
            toolCall('file_write', { path: `f${i}.txt`, content: String(i).repeat(3000) }, { id: `call_write_${i}` }),
          ]),
        ),
        text('Wrote three files.'),
      ),
    args: [
      {
        agent: defineAgent({ name: 'writer', instructions: 'Write files.', tools: ['file_write', 'get_tool_result'] }),
        input: 'write three files',
        context: { limits: { compactModelInputBytes: 5000 } },
      },
    ],
  },
  {
    // A model call retried through an outage (the retry window, MODEL_UNAVAILABLE from the third attempt).
    name: 'agent-run-outage',
    script: (model) => {
      const unavailable = {
        error: { status: 503, body: { error: { message: 'overloaded' } }, headers: { 'retry-after-ms': '100' } },
      };
      model.script(unavailable, unavailable, unavailable, text('back'));
    },
    args: [{ agent: defineAgent({ name: 'patient', instructions: 'Wait.' }), input: 'hello' }],
  },
  {
    // Agent tools with deadlines kept by the parent: one child finishes in time, the other is cancelled at its timeout.
    name: 'agent-run-agent-tool-deadline',
    script: (model) => {
      model.scriptFor(
        'You are the lead.',
        toolCalls([
          toolCall('quick', { task: 'q' }, { id: 'call_quick' }),
          toolCall('slow', { task: 's' }, { id: 'call_slow' }),
        ]),
        text('One answered.'),
      );
      model.scriptFor('You are quick.', text('done'));
      model.scriptFor('You are slow.', text('too late', { hangMs: 4000 }));
    },
    args: [
      {
        agent: defineAgent({
          name: 'lead',
          instructions: 'You are the lead.',
          tools: [
            asTool(member('quick'), { description: 'Quick.', timeoutMs: 60_000 }),
            asTool(member('slow'), { description: 'Slow.', timeoutMs: 1500 }),
          ],
        }),
        input: 'ask both',
      },
    ],
  },
  {
    name: 'loop-agent',
    script: (model) => {
      model.scriptFor('You are drafter.', text('draft 1'), text('draft 2'));
      model.scriptFor('You are critic.', toolCalls([toolCall('ls', {})]), text('better'), text('good'));
    },
    args: [
      {
        agent: loopAgent({ name: 'refine', maxIterations: 2, subAgents: [member('drafter'), member('critic')] }),
        input: 'write a line',
      },
    ],
  },
  {
    // A loop that continues as new as the root: its event log written before it continues and when it ends.
    name: 'loop-agent-event-log',
    ...refineLoopContinuingAsNew('write a line'),
  },
  {
    name: 'sequential-agent',
    script: (model) => {
      model.scriptFor('You are researcher.', toolCalls([toolCall('ls', {})]), text('facts'));
      model.scriptFor('You are writer.', text('an article'));
    },
    args: [
      {
        agent: sequentialAgent({ name: 'pipeline', subAgents: [member('researcher'), member('writer')] }),
        input: 'otters',
      },
    ],
  },
  {
    name: 'parallel-agent',
    script: (model) => {
      model.scriptFor('You are north.', toolCalls([toolCall('ls', {})]), text('clear'));
      model.scriptFor('You are south.', text('rain'));
    },
    args: [
      { agent: parallelAgent({ name: 'forecast', subAgents: [member('north'), member('south')] }), input: 'weather?' },
    ],
  },
  {
    // Structured output (since 0.3.0): an answer off the schema, a repair turn, then a valid answer after a tool call.
    name: 'agent-run-structured-output',
    script: (model) =>
      model.script(
        text('{"total": "lots"}'),
        toolCalls([toolCall('ls', {})]),
        text('{"total": 42, "currency": "EUR"}'),
      ),
    args: [
      {
        agent: defineAgent({
          name: 'invoice',
          instructions: 'Extract the total.',
          tools: ['ls'],
          outputSchema: {
            type: 'object',
            properties: { total: { type: 'number' }, currency: { type: 'string' } },
            required: ['total', 'currency'],
          },
        }),
        input: 'the invoice',
      },
    ],
  },
  {
    // A misspelled tool name (since 0.4.0): the run fails before its first model call with a non-retryable UnknownTool.
    name: 'agent-run-unknown-tool',
    script: () => undefined,
    args: [
      { agent: defineAgent({ name: 'typo', instructions: 'You list files.', tools: ['ls', 'lss'] }), input: 'ls' },
    ],
    ends: 'failed',
  },
  {
    // Structured output that never fits: the run fails with OutputValidationError once its one repair is used.
    name: 'agent-run-structured-output-failed',
    script: (model) => model.script(text('not json'), text('{"total": "still not a number"}')),
    args: [
      {
        agent: defineAgent({
          name: 'invoice',
          instructions: 'Extract the total.',
          maxOutputRepairs: 1,
          outputSchema: { type: 'object', properties: { total: { type: 'number' } }, required: ['total'] },
        }),
        input: 'the invoice',
      },
    ],
    ends: 'failed',
  },
  {
    // A sub-agent with an output schema stores its parsed output under its outputKey in the sequence's state.
    name: 'sequential-agent-structured-output',
    script: (model) => {
      model.scriptFor('You are extractor.', text('{"city": "Oslo"}'));
      model.scriptFor('You are writer.', text('A line about Oslo.'));
    },
    args: [
      {
        agent: sequentialAgent({
          name: 'pipeline',
          subAgents: [
            member('extractor', {
              tools: [],
              outputKey: 'place',
              outputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
            }),
            member('writer', { instructions: 'You are writer. Write about {place}.' }),
          ],
        }),
        input: 'somewhere cold',
      },
    ],
  },
];
