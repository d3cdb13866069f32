// Idempotent starts on a real dev server: POST /runs with one Idempotency-Key starts one workflow (201) and answers
// repeats with the same run (200, Idempotent-Replayed), running or closed; another body under the key is a 409; keys
// are per tenant; concurrent repeats converge; a malformed key is a 400. AgioClient.start with a runId does the same.
import { defineAgent, type RunOutput } from '../../common';
import { IdempotencyConflictError } from '../../client/agio-client';
import { testTools } from '../fixtures/test-tools';
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { heldAnswer } from '../helpers/agent-runs';
import { request, type JsonResponse } from '../helpers/bridge';
import { uniqueId } from '../helpers/temporal';
import { useTestBed } from '../helpers/test-bed';
import { runChain, waitFor } from '../helpers/workflow-agents';

const A = 'a-token';
const B = 'b-token';

describe('idempotent starts', () => {
  const echoer = defineAgent({ name: 'echoer', instructions: 'You are the echoer.' });
  const bed = useTestBed({ tools: testTools, agents: [echoer], bridge: { tokens: `${A}:tenant-a,${B}:tenant-b` } });

  /** POST /runs with an Idempotency-Key; also reports the Idempotent-Replayed header. */
  async function post(body: object, key?: string, token = A): Promise<JsonResponse & { replayed: string | null }> {
    const res = await fetch(`${bed.bridge.url}/runs`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        ...(key !== undefined ? { 'idempotency-key': key } : {}),
      },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: await res.json(), replayed: res.headers.get('idempotent-replayed') };
  }

  /** Workflow executions that ever had this id (closed ones included), once visibility has indexed at least one. */
  async function executionsOf(runId: string): Promise<number> {
    const count = async () => (await bed.client.workflow.count(`WorkflowId = '${runId}'`)).count;
    await waitFor(`visibility to list ${runId}`, async () => (await count()) > 0);
    return count();
  }

  it('starts one run for one key: 201, then 200 with the same runId while it runs and after it has completed', async () => {
    const { answer, release } = heldAnswer(text('echoed once'));
    bed.server.script(answer);
    const key = uniqueId('order');
    const body = { agent: 'echoer', input: 'hello', limits: { maxSteps: 3 } };

    const first = await post(body, key);
    const repeat = await post(body, key);
    release();
    const runId: string = first.body.runId;
    const output: RunOutput = await bed.bridge.agio.getHandle(runId).result();
    const afterEnd = await post({ limits: { maxSteps: 3 }, input: 'hello', agent: 'echoer' }, key);

    expect(first).toEqual({
      status: 201,
      body: {
        runId: expect.stringMatching(/^run-[0-9a-f]{32}$/),
        links: { self: `/runs/${runId}`, events: `/runs/${runId}/events` },
      },
      replayed: null,
    });
    expect(repeat).toEqual({ status: 200, body: first.body, replayed: 'true' });
    // Completed, and the same body with its keys in another order: still the same request, still the same run.
    expect(afterEnd).toEqual({ status: 200, body: first.body, replayed: 'true' });
    expect(output.response).toBe('echoed once');
    expect(bed.server.requests).toHaveLength(1);
    expect(await executionsOf(runId)).toBe(1);
    expect(await request(`${bed.bridge.url}/runs/${runId}`, { token: A })).toMatchObject({
      status: 200,
      body: { status: 'completed', output: { response: 'echoed once' } },
    });
  });

  it('answers 409 idempotency_conflict to the same key with a different body, running or closed, and starts nothing', async () => {
    const { answer, release } = heldAnswer(text('the first request'));
    bed.server.script(answer);
    const key = uniqueId('conflict');
    const first = await post({ agent: 'echoer', input: 'hello' }, key);

    const whileRunning = [
      await post({ agent: 'echoer', input: 'hello?' }, key),
      await post({ agent: 'echoer', input: 'hello', limits: { maxSteps: 2 } }, key),
    ];
    release();
    await bed.bridge.agio.getHandle(first.body.runId).result();
    const afterEnd = await post({ agent: 'echoer', input: 'hello', sessionId: 's-1' }, key);

    expect(first.status).toBe(201);
    for (const res of [...whileRunning, afterEnd]) {
      expect(res).toEqual({
        status: 409,
        body: { error: { code: 'idempotency_conflict', message: expect.stringContaining(key) } },
        replayed: null,
      });
    }
    expect(bed.server.requests).toHaveLength(1);
    expect(await executionsOf(first.body.runId)).toBe(1);
  });

  it("keeps two tenants' keys apart: the same key and body start two runs, and neither tenant sees the other's", async () => {
    bed.server.scriptFor('You are the echoer.', text('one'), text('two'));
    const key = uniqueId('shared');
    const body = { agent: 'echoer', input: 'same body' };

    const ofA = await post(body, key, A);
    const ofB = await post(body, key, B);
    await Promise.all([ofA, ofB].map((r) => bed.bridge.agio.getHandle(r.body.runId).result()));

    expect([ofA.status, ofB.status]).toEqual([201, 201]);
    expect(ofA.body.runId).not.toBe(ofB.body.runId);
    expect((await bed.bridge.agio.getHandle(ofA.body.runId).workflow.describe()).memo).toMatchObject({
      tenant: 'tenant-a',
    });
    expect((await bed.bridge.agio.getHandle(ofB.body.runId).workflow.describe()).memo).toMatchObject({
      tenant: 'tenant-b',
    });
    expect(await request(`${bed.bridge.url}/runs/${ofA.body.runId}`, { token: B })).toMatchObject({
      status: 404,
      body: { error: { code: 'run_not_found' } },
    });
    expect(await request(`${bed.bridge.url}/runs/${ofB.body.runId}`, { token: A })).toMatchObject({
      status: 404,
      body: { error: { code: 'run_not_found' } },
    });
    // Each tenant's repeat finds its own run.
    expect(await post(body, key, B)).toMatchObject({ status: 200, body: { runId: ofB.body.runId } });
  });

  it('converges concurrent identical POSTs on one run: one 201, every other answer a 200 with its runId', async () => {
    const { answer, release } = heldAnswer(text('only once'));
    bed.server.script(answer);
    const key = uniqueId('burst');

    const answers = await Promise.all(Array.from({ length: 8 }, () => post({ agent: 'echoer', input: 'burst' }, key)));
    release();
    const runId: string = answers[0].body.runId;
    await bed.bridge.agio.getHandle(runId).result();

    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 201]);
    expect(new Set(answers.map((a) => a.body.runId))).toEqual(new Set([runId]));
    expect(bed.server.requests).toHaveLength(1);
    expect(await executionsOf(runId)).toBe(1);
  });

  it('answers 400 to a malformed key and starts nothing; without a key every POST is a new run', async () => {
    for (const key of ['', 'has space', 'x'.repeat(256), 'tab\tinside']) {
      const res = await post({ agent: 'echoer', input: 'never' }, key);
      expect([key, res.status, res.body.error?.code]).toEqual([key, 400, 'invalid_request']);
      expect(res.body.error.message).toMatch(/Idempotency-Key/);
    }
    expect(bed.server.requests).toHaveLength(0);

    bed.server.script(text('first'), text('second'));
    const runs = [await post({ agent: 'echoer', input: 'no key' }), await post({ agent: 'echoer', input: 'no key' })];
    await Promise.all(runs.map((r) => bed.bridge.agio.getHandle(r.body.runId).result()));
    expect(runs.map((r) => [r.status, r.replayed])).toEqual([
      [201, null],
      [201, null],
    ]);
    expect(runs[0].body.runId).not.toBe(runs[1].body.runId);
  });

  it('AgioClient.start with a runId returns the same run for the same request (created: false) and refuses another', async () => {
    bed.server.script(toolCalls([toolCall('record', { label: 'once' }, { id: 'call_1' })]), text('recorded, done'));
    const agent = defineAgent({ name: 'recorder', tools: ['record'] });
    const runId = uniqueId('client-run');
    const opts = {
      runId,
      tenant: 'acme',
      limits: { continueAsNewAfterModelCalls: 1 },
      modelSettings: { temperature: 0.4 },
    };

    const first = await bed.agio.start(agent, 'record once', opts);
    const again = await bed.agio.start(agent, 'record once', { ...opts, modelSettings: { temperature: 0.4 } });
    const output = await first.result();
    // The run continued as new on the way (one model call per run): the id's latest run still carries the fingerprint.
    expect((await runChain(bed.client, runId)).map((r) => r.status)).toEqual(['CONTINUED_AS_NEW', 'COMPLETED']);
    const afterEnd = await bed.agio.start(agent, 'record once', opts);

    expect([first.created, again.created, afterEnd.created]).toEqual([true, false, false]);
    expect([again.runId, afterEnd.runId]).toEqual([runId, runId]);
    expect(await afterEnd.result()).toEqual(output);
    expect(output.response).toBe('recorded, done');
    for (const different of [
      { ...opts, modelSettings: { temperature: 0.5 } },
      { ...opts, tenant: 'other' },
    ]) {
      await expect(bed.agio.start(agent, 'record once', different)).rejects.toThrow(IdempotencyConflictError);
    }
    const conflict = await bed.agio.start(agent, 'record twice', opts).catch((err: unknown) => err);
    expect(conflict).toMatchObject({
      name: 'IdempotencyConflictError',
      runId,
      message: expect.stringMatching(/different request/),
    });
    expect(bed.server.requests).toHaveLength(2);
  });

  it('keeps a failed run for its id (a repeat finds the failure), and refuses an id taken by a run started without one', async () => {
    bed.server.script(
      text('', { error: { status: 400, body: { error: { message: 'bad request' } } } }),
      text('a plain run'),
    );
    const runId = uniqueId('failing');
    const failed = await bed.agio.start(echoer, 'fail', { runId });
    await expect(failed.result()).rejects.toThrow();

    const repeat = await bed.agio.start(echoer, 'fail', { runId });
    expect(repeat.created).toBe(false);
    await expect(repeat.result()).rejects.toThrow();

    const plain = await bed.agio.start(echoer, 'no key');
    expect(plain.created).toBe(true);
    await plain.result();
    await expect(bed.agio.start(echoer, 'no key', { runId: plain.runId })).rejects.toMatchObject({
      name: 'IdempotencyConflictError',
      message: expect.stringMatching(/no request fingerprint/),
    });
    expect(bed.server.requests).toHaveLength(2);
  });
});
