// The approvals inbox (GET /approvals, AgioClient.pendingApprovals) on a real dev server, worker and bridge: a tenant's
// calls waiting at the root and in a nested run of two runs, not another tenant's; filters; decisions bound to the call
// shown (a stale binding is refused); the inbox after a worker restart; bad query parameters.
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { testTools } from '../fixtures/test-tools';
import { askingAgent, decide, inbox, keyOf, waitForAsk, waitForInbox, delegatingAgent } from '../helpers/approvals';
import { request } from '../helpers/bridge';
import { startTestWorker } from '../helpers/temporal';
import { useTestBed } from '../helpers/test-bed';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

const ALICE = 'alice-token';
const BOB = 'bob-token';
const STARTER = 'starter-token';

/** An agent that delegates to `child` (offered as a tool under the child's name). */
describe('the approvals inbox', () => {
  const bed = useTestBed({
    tools: testTools,
    bridge: { tokens: `${ALICE}:acme:alice,${BOB}:beta:bob,${STARTER}:acme:ci:start` },
  });

  it("lists a tenant's calls waiting at the root and in a nested run, filters them, and binds decisions to them", async () => {
    const root = askingAgent('inbox-root');
    const child = askingAgent('inbox-child');
    const parent = delegatingAgent('inbox-parent', child);
    const other = askingAgent('inbox-other');
    bed.server.scriptFor(
      keyOf(root),
      toolCalls([toolCall('record', { label: 'root' }, { id: 'call_root' })]),
      text('root done'),
    );
    bed.server.scriptFor(
      keyOf(parent),
      toolCalls([toolCall('inbox-child', { task: 'record' }, { id: 'call_kid' })]),
      text('parent done'),
    );
    bed.server.scriptFor(
      keyOf(child),
      toolCalls([toolCall('record', { label: 'nested' }, { id: 'call_nested' })]),
      text('child done'),
    );
    bed.server.scriptFor(keyOf(other), toolCalls([toolCall('record', { label: 'beta' }, { id: 'call_beta' })]));
    const a = await bed.bridge.agio.start(root, 'record', { tenant: 'acme' });
    const b = await bed.bridge.agio.start(parent, 'delegate', { tenant: 'acme' });
    const c = await bed.bridge.agio.start(other, 'record', { tenant: 'beta' });
    await Promise.all([
      waitForAsk(bed.client, a.runId, 'call_root'),
      waitForAsk(bed.client, b.runId, 'call_nested'),
      waitForAsk(bed.client, c.runId, 'call_beta'),
    ]);
    const childId = `${b.runId}/tool/3-call_kid`;

    const acme = await waitForInbox(bed.bridge, ALICE, (items) => items.length === 2);
    const byCall = Object.fromEntries(acme.map((i) => [i.toolCallId, i]));
    expect(byCall.call_root).toMatchObject({
      runId: a.runId,
      workflowId: a.runId,
      rootRunId: a.runId,
      agent: 'inbox-root',
      depth: 0,
      tool: 'record',
      args: { label: 'root' },
      reason: '"record" requires approval',
      rule: { tool: 'record', action: 'ask' },
      onExpiry: 'deny',
      binding: expect.stringMatching(/^[0-9a-f]{16}\.0$/),
    });
    expect(byCall.call_nested).toMatchObject({ runId: childId, rootRunId: b.runId, agent: 'inbox-child', depth: 1 });
    for (const item of acme) {
      const asked = Date.parse(item.askedAt as string);
      expect(Date.parse(item.expiresAt as string) - asked).toBeGreaterThanOrEqual(24 * 3_600_000 - 1000);
    }
    // Another tenant sees only its own; the client answers the same as the route.
    expect((await waitForInbox(bed.bridge, BOB, (items) => items.length === 1))[0]).toMatchObject({
      toolCallId: 'call_beta',
      runId: c.runId,
    });
    expect(
      (await bed.bridge.agio.pendingApprovals({ tenant: 'acme' })).approvals.map((i) => i.toolCallId).sort(),
    ).toEqual(['call_nested', 'call_root']);
    expect((await inbox(bed.bridge, ALICE, { agent: 'inbox-child' })).map((i) => i.toolCallId)).toEqual([
      'call_nested',
    ]);
    expect((await inbox(bed.bridge, ALICE, { rootRunId: a.runId })).map((i) => i.toolCallId)).toEqual(['call_root']);
    expect((await inbox(bed.bridge, ALICE, { rootRunId: b.runId })).map((i) => i.toolCallId)).toEqual(['call_nested']);
    expect(await inbox(bed.bridge, ALICE, { tool: 'bash' })).toEqual([]);
    expect(await inbox(bed.bridge, ALICE, { limit: '1' })).toHaveLength(1);

    // A binding that is not the waiting call's (another call's) is refused; the right one decides; none still works.
    const stale = await decide(bed.bridge, ALICE, a.runId, 'call_root', 'approve', {
      binding: byCall.call_nested.binding,
    });
    expect(stale).toMatchObject({ status: 409, body: { error: { code: 'stale_binding' } } });
    expect(
      await decide(bed.bridge, ALICE, childId, 'call_nested', 'approve', { binding: byCall.call_nested.binding }),
    ).toEqual({
      status: 200,
      body: { toolCallId: 'call_nested', decision: 'approve' },
    });
    expect((await decide(bed.bridge, ALICE, a.runId, 'call_root', 'deny', { message: 'no' })).status).toBe(200);
    // Another tenant's run is not found, whatever its call.
    expect((await decide(bed.bridge, ALICE, c.runId, 'call_beta', 'approve')).status).toBe(404);
    expect((await b.result()).response).toBe('parent done');
    expect((await a.result()).response).toBe('root done');
    await waitForInbox(bed.bridge, ALICE, (items) => items.length === 0);
    await c.cancel();
  });

  /** `agio <args>` against the test bridge as alice (async: the bridge answers from this process). */
  const agio = async (...args: string[]) => {
    const root = path.resolve(__dirname, '../..');
    const env = { ...process.env, AGIO_URL: bed.bridge.url, AGIO_TOKEN: ALICE };
    const run = promisify(execFile);
    return (await run(path.join(root, 'node_modules/.bin/tsx'), ['cli/main.ts', ...args], { cwd: root, env })).stdout;
  };

  it('still lists a waiting call after the worker that saw it ask was replaced, for the CLI too', async () => {
    const agent = askingAgent('inbox-restart');
    bed.server.scriptFor(
      keyOf(agent),
      toolCalls([toolCall('record', { label: 'r' }, { id: 'call_restart' })]),
      text('done'),
    );
    const run = await bed.bridge.agio.start(agent, 'record', { tenant: 'acme' });
    await waitForAsk(bed.client, run.runId, 'call_restart');
    const listed = (items: { runId: string }[]) => items.some((i) => i.runId === run.runId);
    await waitForInbox(bed.bridge, ALICE, listed);
    const { taskQueue, stores } = bed.worker;
    await bed.worker.stop();
    // With no worker its state cannot be read: the inbox answers within its query timeout and says so.
    const { body: down } = await request(`${bed.bridge.url}/approvals`, { token: ALICE });
    expect(down.approvals.some((i: { runId: string }) => i.runId === run.runId)).toBe(false);
    expect(down.unanswered).toBeGreaterThanOrEqual(1);
    bed.worker = await startTestWorker({ taskQueue, stores, tools: testTools, model: bed.model() });

    const [item] = await waitForInbox(bed.bridge, ALICE, listed);
    expect(item).toMatchObject({ toolCallId: 'call_restart', agent: 'inbox-restart', args: { label: 'r' } });
    // The CLI lists it (as text, and as JSON) and decides it quoting its binding.
    const table = await agio('approvals', '--root', run.runId);
    expect(table).toContain(`agio approve|deny ${run.runId} call_restart --binding ${item.binding}`);
    const asJson = JSON.parse(await agio('approvals', '--json', '--agent', 'inbox-restart'));
    expect(asJson.approvals).toEqual([expect.objectContaining({ toolCallId: 'call_restart', binding: item.binding })]);
    expect(JSON.parse(await agio('approve', run.runId, 'call_restart', '--binding', item.binding))).toEqual({
      toolCallId: 'call_restart',
      decision: 'approve',
    });
    expect((await run.result()).response).toBe('done');
  });

  it('refuses bad query parameters, a missing token and a token without the read scope', async () => {
    const get = (query: string, token?: string) => request(`${bed.bridge.url}/approvals${query}`, { token });
    for (const query of ['?limit=0', '?limit=501', '?limit=x', '?agent=a%20b', '?rootRunId=a%20b', '?unknown=1']) {
      const { status, body } = await get(query, ALICE);
      expect([query, status, body.error.code]).toEqual([query, 400, 'invalid_request']);
    }
    expect((await get('')).status).toBe(401);
    expect(await get('', STARTER)).toMatchObject({
      status: 403,
      body: { error: { code: 'forbidden', scope: 'read' } },
    });
    expect(
      (await decide(bed.bridge, ALICE, 'run-x', 'call_x', 'approve', { binding: 'not a binding' })).body.error.code,
    ).toBe('invalid_request');
  });
});
