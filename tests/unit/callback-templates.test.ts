// Callback tools' pure parts: the signed tokens (forged, foreign, expired, read by the client without the secret) and
// the agents file's start request, whose values come from the model: encoded in the URL, refused where they would
// inject a header or move the request to another host, typed in the JSON body; and `${ENV}` in the file.
import { decodeCallbackClaims } from '../../common';
import { CallbackTokens } from '../../platform/callback-tokens';
import {
  HttpStartTemplate,
  TemplateRefusal,
  renderStart,
  type TemplateValues,
} from '../../activities/callbacks/http-template';
import { AgentsFileError, parseAgentsFile } from '../../worker/agents-file';
import { redactTokens } from '../../bridge/log-redaction';

const values = (args: Record<string, unknown>): TemplateValues => ({
  args,
  callback: { url: 'https://agio.example/callbacks/cb1.x.y', token: 'cb1.x.y', expiresAt: 1_000 },
  toolCallId: 'call_1',
  runId: 'run-1',
  idempotencyKey: 'run-1:3:call_1',
});

describe('callback tokens', () => {
  const tokens = new CallbackTokens('a-secret-of-enough-length');
  const claims = { w: 'run-1/tool/3-call', c: '3', t: 'tenant-a', e: Date.now() + 60_000 };

  it('verify what they minted, and the client reads the same claims without the secret', () => {
    const token = tokens.mint(claims);
    expect(tokens.verify(token)).toEqual({ claims });
    expect(decodeCallbackClaims(token)).toEqual(claims);
    expect(token).toMatch(/^cb1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
  });

  it('refuse altered claims, another secret, a wrong shape and an expired token', () => {
    const [v, body, sig] = tokens.mint(claims).split('.');
    const altered = Buffer.from(JSON.stringify({ ...claims, t: 'tenant-b' })).toString('base64url');
    expect(tokens.verify(`${v}.${altered}.${sig}`)).toEqual({ refused: 'invalid' });
    expect(tokens.verify(new CallbackTokens('another-secret-entirely').mint(claims))).toEqual({ refused: 'invalid' });
    for (const bad of ['', 'cb1', `${v}.${body}`, `cb2.${body}.${sig}`, `${v}.${body}.${sig}.x`])
      expect(tokens.verify(bad)).toEqual({ refused: 'invalid' });
    expect(tokens.verify(tokens.mint({ ...claims, e: 5 }))).toEqual({ refused: 'expired' });
    expect(() => new CallbackTokens('short')).toThrow(/at least 16 bytes/);
  });
});

describe('callback URLs in request logs', () => {
  it('are redacted: the token is the credential', () => {
    expect(redactTokens('POST /callbacks/cb1.eyJ3Ijoi.c2lnbmF0dXJl?x=1 → 200')).toBe(
      'POST /callbacks/[redacted]?x=1 → 200',
    );
  });
});

describe('callback start templates', () => {
  const template = HttpStartTemplate.parse({
    url: 'https://ci.example.com/api/{{args.project}}/jobs?ref={{args.ref}}',
    headers: { authorization: 'Bearer fixed', 'x-label': 'job {{args.label}}' },
    body: { ref: '{{args.ref}}', count: '{{args.count}}', note: 'for {{args.label}}', callback: '{{callback.url}}' },
  });

  it('encodes values in the URL, keeps JSON types in the body, and sends the callback URL', () => {
    const out = renderStart(template, values({ project: 'a/b?c#d', ref: 'main&x=1', label: 'nightly', count: 3 }));
    expect(out.url).toBe('https://ci.example.com/api/a%2Fb%3Fc%23d/jobs?ref=main%26x%3D1');
    expect(out.method).toBe('POST');
    expect(out.headers).toEqual({ authorization: 'Bearer fixed', 'x-label': 'job nightly' });
    expect(JSON.parse(out.body!)).toEqual({
      ref: 'main&x=1',
      count: 3,
      note: 'for nightly',
      callback: 'https://agio.example/callbacks/cb1.x.y',
    });
  });

  it('refuses arguments that would inject a header, climb the path or change the host', () => {
    expect(() => renderStart(template, values({ project: 'p', ref: 'r', label: 'a\r\nx-admin: 1' }))).toThrow(
      TemplateRefusal,
    );
    expect(() => renderStart(template, values({ project: '..', ref: 'r', label: 'l' }))).toThrow(TemplateRefusal);
    const atHost = HttpStartTemplate.safeParse({ url: 'https://{{args.host}}/jobs' });
    expect(atHost.success).toBe(false);
    const inPort = HttpStartTemplate.safeParse({ url: 'https://ci.example.com:{{args.port}}/jobs' });
    expect(inPort.success).toBe(false);
    expect(HttpStartTemplate.safeParse({ url: 'https://ci.example.com/{{env.SECRET}}' }).success).toBe(false);
    expect(HttpStartTemplate.safeParse({ url: 'file:///etc/passwd' }).success).toBe(false);
  });

  it('come from an agents file, with ${ENV} in the request and a clear error for an unknown placeholder', () => {
    const file = (start: string) => `
agents:
  - name: ops
    tools: [run_ci]
callbackTools:
  - name: run_ci
    description: Runs CI.
    waitTimeoutMs: 60000
    parameters: { type: object, properties: { ref: { type: string } }, required: [ref] }
    start:
${start}
`;
    const loaded = parseAgentsFile(
      file(`      url: https://ci.example.com/jobs
      headers: { authorization: 'Bearer \${CI_TOKEN}' }
      body: { ref: '{{args.ref}}', callback: '{{callback.url}}' }`),
      '/x/agents.yaml',
      { CI_TOKEN: 'secret-token' },
    );
    expect(loaded.callbackTools).toHaveLength(1);
    expect(loaded.callbackTools[0].start.headers).toEqual({ authorization: 'Bearer secret-token' });
    expect(() =>
      parseAgentsFile(file(`      url: https://ci.example.com/jobs/{{args.ref}}/{{nope}}`), '/x/agents.yaml', {}),
    ).toThrow(AgentsFileError);
    expect(() =>
      parseAgentsFile(file(`      url: https://ci.example.com/jobs/{{nope}}`), '/x/agents.yaml', {}),
    ).toThrow(/unknown placeholder \{\{nope\}\}/);
  });
});
