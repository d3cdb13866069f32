// A `#token=` link as an attacker would send one: it must not sign a person into the sender's tenant without a
// visible prompt naming that tenant, nor silently replace the token a tab already holds; the token leaves the
// address bar at once, and nothing is read with it before the person agrees.
import { signInByLink, type WatchedPage, useBrowserPages } from '../helpers/browser';
import { useTestBed } from '../helpers/test-bed';

const MINE = 'my-token';
const THEIRS = 'attacker-token';

describe("the viewer's #token= links", () => {
  const bed = useTestBed({ bridge: { tokens: `${MINE}:my-team,${THEIRS}:attacker-tenant` } });
  const { open } = useBrowserPages();
  const held = (w: WatchedPage) => w.page.evaluate<string | null>("sessionStorage.getItem('agio.token')");

  it('asks before signing a fresh tab in, naming the tenant, and signs in nothing when declined', async () => {
    const w = await open();
    await w.page.goto(`${bed.bridge.url}/ui/#token=${THEIRS}`);
    await w.page.getByTestId('link-sign-in-prompt').waitFor();
    expect(await w.page.getByTestId('link-tenant').textContent()).toBe('attacker-tenant');
    expect(w.page.url()).toBe(`${bed.bridge.url}/ui/`);
    expect(await held(w)).toBeNull();
    // Only the question was asked with the link's token: no list of runs, no agents.
    expect(w.requests.filter((r) => !r.startsWith('GET /ui/'))).toEqual(['GET /whoami']);
    await w.page.getByTestId('link-cancel').click();
    await w.page.locator('input[name=token]').waitFor();
    expect(await held(w)).toBeNull();
  });

  it('asks before replacing the token a tab holds, names both tenants, and keeps the old one when told to', async () => {
    const w = await open();
    await signInByLink(w.page, `${bed.bridge.url}/ui/#token=${MINE}`);
    await w.page.locator('h1:text("Runs")').waitFor();
    expect(await held(w)).toBe(MINE);

    await w.page.goto(`${bed.bridge.url}/ui/#token=${THEIRS}`);
    await w.page.getByTestId('link-sign-in-prompt').waitFor();
    expect(await w.page.getByTestId('link-tenant').textContent()).toBe('attacker-tenant');
    await w.page.locator('[data-testid=link-replaces]:has-text("tenant my-team")').waitFor();
    expect(w.page.url()).not.toContain('token');
    expect(await held(w)).toBe(MINE);
    await w.page.getByTestId('link-cancel').click();
    await w.page.locator('h1:text("Runs")').waitFor();
    expect(await held(w)).toBe(MINE);

    await signInByLink(w.page, `${bed.bridge.url}/ui/#token=${THEIRS}`);
    await w.page.locator('h1:text("Runs")').waitFor();
    expect(await held(w)).toBe(THEIRS);
  });

  it('signs in without a prompt again when the link holds the token the tab already has', async () => {
    const w = await open();
    await signInByLink(w.page, `${bed.bridge.url}/ui/#token=${MINE}`);
    await w.page.locator('h1:text("Runs")').waitFor();
    await w.page.goto(`${bed.bridge.url}/ui/#token=${MINE}`);
    await w.page.locator('h1:text("Runs")').waitFor();
    expect(await w.page.getByTestId('link-sign-in-prompt').count()).toBe(0);
  });
});
