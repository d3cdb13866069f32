// The pure parts of idempotent starts: canonical JSON and the request fingerprint (what counts as the same request),
// and the run id an Idempotency-Key names for a tenant.
import type { FastifyRequest } from 'fastify';
import { defineAgent } from '../../common';
import { canonicalJson, startFingerprint, type StartRequest } from '../../client/idempotent-start';
import { idempotencyKeyOf, runIdForKey } from '../../bridge/start-run';
import { RunParams } from '../../bridge/routes/context';

const agent = defineAgent({ name: 'writer', instructions: 'Write.', modelSettings: { temperature: 0.2 } });
const request = (over: Partial<StartRequest> = {}): StartRequest => ({
  workflowType: 'agentRun',
  agent,
  input: 'hello',
  tenant: 'acme',
  ...over,
});

describe('canonicalJson', () => {
  it('writes every object with its keys in order, at any depth, and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}',
    );
    expect(canonicalJson({ a: undefined, b: 1 })).toBe('{"b":1}');
  });
});

describe('startFingerprint', () => {
  it('does not depend on the order of keys anywhere in the request', () => {
    const reordered: StartRequest = {
      tenant: 'acme',
      limits: { maxTotalTokens: 500, maxSteps: 3 },
      input: 'hello',
      agent: Object.fromEntries(Object.entries(agent).reverse()),
      workflowType: 'agentRun',
      permissions: [{ action: 'ask', tool: 'bash' }],
    };
    const ordered = request({
      limits: { maxSteps: 3, maxTotalTokens: 500 },
      permissions: [{ tool: 'bash', action: 'ask' }],
    });
    expect(startFingerprint(reordered)).toBe(startFingerprint(ordered));
    expect(startFingerprint(ordered)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('counts empty settings and absent ones as the same request', () => {
    const plain = startFingerprint(request());
    expect(
      startFingerprint(request({ limits: {}, permissions: [], modelSettings: {}, state: {}, sessionId: undefined })),
    ).toBe(plain);
  });

  it('changes with anything that decides the run', () => {
    const plain = startFingerprint(request());
    const variants: Partial<StartRequest>[] = [
      { input: 'hello!' },
      { input: [{ role: 'user', content: 'hello' }] },
      { tenant: 'other' },
      { sessionId: 's1' },
      { userId: 'u1' },
      { limits: { maxSteps: 4 } },
      { permissions: [{ tool: 'bash', action: 'deny' }] },
      { modelSettings: { temperature: 0.3 } },
      { state: { topic: 'x' } },
      { resumeFrom: { timesLooped: 1, currentSubAgent: 0 } },
      { agent: { ...agent, instructions: 'Write well.' } },
      { workflowType: 'loopAgentRun' },
    ];
    const prints = variants.map((v) => startFingerprint(request(v)));
    expect(new Set([plain, ...prints]).size).toBe(variants.length + 1);
  });

  it('tells the order of permission rules apart (the first matching rule decides)', () => {
    const rules = [
      { tool: 'bash', action: 'ask' },
      { tool: '*', action: 'deny' },
    ];
    expect(startFingerprint(request({ permissions: rules }))).not.toBe(
      startFingerprint(request({ permissions: [...rules].reverse() })),
    );
  });
});

describe('idempotency keys', () => {
  const reqWith = (headers: Record<string, unknown>) => ({ headers }) as unknown as FastifyRequest;

  it('names one run per tenant and key, a valid run id, and never the same run for two tenants', () => {
    const id = runIdForKey('acme', 'order-17');
    expect(id).toMatch(/^run-[0-9a-f]{32}$/);
    expect(runIdForKey('acme', 'order-17')).toBe(id);
    expect(runIdForKey('globex', 'order-17')).not.toBe(id);
    expect(runIdForKey('acme', 'order-18')).not.toBe(id);
    // No separator games: the tenant and the key are hashed as a JSON pair.
    expect(runIdForKey('a:b', 'c')).not.toBe(runIdForKey('a', 'b:c'));
    expect(RunParams.safeParse({ id }).success).toBe(true);
  });

  it('takes 1-255 visible ASCII characters and refuses anything else with a 400', () => {
    expect(idempotencyKeyOf(reqWith({}))).toBeUndefined();
    expect(idempotencyKeyOf(reqWith({ 'idempotency-key': 'k' }))).toBe('k');
    expect(idempotencyKeyOf(reqWith({ 'idempotency-key': '~'.repeat(255) }))).toBe('~'.repeat(255));
    for (const bad of ['', ' ', 'a b', 'x'.repeat(256), 'tab\there', 'é', 'a, b', ['a', 'b']]) {
      expect(() => idempotencyKeyOf(reqWith({ 'idempotency-key': bad }))).toThrow(
        expect.objectContaining({ status: 400, code: 'invalid_request' }),
      );
    }
  });
});
