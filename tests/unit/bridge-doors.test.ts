// The door rules without a server: which Host names a bridge answers to, which Origins may change state, which tokens
// it starts with, and what its logs keep of a token.
import { allowedHostsFor, hostAllowed, isLoopbackBind, originAllowed } from '../../bridge/host-check';
import { redactTokens } from '../../bridge/log-redaction';
import { startTokens, TokensRequiredError } from '../../bridge/start-tokens';

describe('the Host allow-list', () => {
  const loopback = allowedHostsFor('127.0.0.1', undefined);

  it('answers loopback names with any port on a loopback bridge, and nothing else', () => {
    for (const host of ['localhost', 'localhost:8080', '127.0.0.1:1', '[::1]:8080', '[::1]', 'LocalHost.'])
      expect([host, hostAllowed(host, loopback)]).toEqual([host, true]);
    for (const host of [
      'attacker.example',
      'attacker.example:8080',
      'localhost.attacker.example',
      '10.0.0.1',
      '',
      undefined,
    ])
      expect([host, hostAllowed(host, loopback)]).toEqual([host, false]);
  });

  it('adds AGIO_ALLOWED_HOSTS (exact names, .suffix for subdomains, * for any)', () => {
    const allowed = allowedHostsFor('::1', 'agio.example.com, .corp.example');
    expect(hostAllowed('agio.example.com:443', allowed)).toBe(true);
    expect(hostAllowed('a.corp.example', allowed)).toBe(true);
    expect(hostAllowed('corp.example', allowed)).toBe(true);
    expect(hostAllowed('evilcorp.example', allowed)).toBe(false);
    expect(hostAllowed('anything', allowedHostsFor('127.0.0.1', '*'))).toBe(true);
  });

  it('on a bridge bound elsewhere also answers literal IPs (which a rebinding page cannot send) and the host name', () => {
    const wide = allowedHostsFor('0.0.0.0', undefined);
    expect(hostAllowed('192.168.1.5:8080', wide)).toBe(true);
    expect(hostAllowed('[fe80::1]:8080', wide)).toBe(true);
    expect(hostAllowed('attacker.example', wide)).toBe(false);
    expect([isLoopbackBind('127.0.0.2'), isLoopbackBind('[::1]'), isLoopbackBind('0.0.0.0')]).toEqual([
      true,
      true,
      false,
    ]);
  });

  it('lets a state change come from no Origin, its own, or a CORS origin only', () => {
    expect(originAllowed(undefined, 'localhost:8080', [])).toBe(true);
    expect(originAllowed('http://localhost:8080', 'localhost:8080', [])).toBe(true);
    expect(originAllowed('http://attacker.example', 'localhost:8080', [])).toBe(false);
    expect(originAllowed('null', 'localhost:8080', [])).toBe(false);
    expect(originAllowed('https://app.example', 'localhost:8080', ['https://app.example'])).toBe(true);
  });
});

describe('the tokens a bridge starts with', () => {
  it('has no fixed token: a loopback bridge without AGIO_TOKENS gets a new random one', () => {
    const a = startTokens(undefined, '127.0.0.1');
    const b = startTokens('', 'localhost');
    expect(a.generated).toMatch(/^agio_[\w-]{32}$/);
    expect(a.generated).not.toBe(b.generated);
    expect([...a.tokens.keys()]).toEqual([a.generated]);
    // The owner's token on a loopback bridge: every scope, admin included.
    expect([...a.tokens.get(a.generated!)!.scopes]).toContain('admin');
    expect(a.tokens.has('dev-token')).toBe(false);
  });

  it('refuses to start bound beyond loopback without AGIO_TOKENS, and takes them when given', () => {
    expect(() => startTokens(undefined, '0.0.0.0')).toThrow(TokensRequiredError);
    expect(() => startTokens(undefined, '0.0.0.0')).toThrow(/AGIO_TOKENS is not set/);
    const given = startTokens('t1:tenant-1', '0.0.0.0');
    expect(given.generated).toBeUndefined();
    expect([...given.tokens.keys()]).toEqual(['t1']);
  });
});

describe('log redaction', () => {
  it('blanks stream tokens, token parameters and bearer tokens', () => {
    expect(redactTokens('/runs/r/events?access_token=abc.def&after=3')).toBe(
      '/runs/r/events?access_token=[redacted]&after=3',
    );
    expect(redactTokens('/ui/?x=1&token=s3cret#token=s3cret')).toBe('/ui/?x=1&token=[redacted]#token=[redacted]');
    expect(redactTokens('authorization: Bearer s3cret')).toBe('authorization: Bearer [redacted]');
  });
});
