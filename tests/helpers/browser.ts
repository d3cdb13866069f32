// Headless Chromium for the viewer's tests: Debian's chromium (scripts/ensure-browser installs it) driven by
// playwright-core, which downloads no browser of its own. Screenshots go to test-results/viewer/ (kept by CI as
// artifacts). Every page records its errors and the origins it asked, so a test can check it loaded nothing else.
import { chromium, type Browser, type Page } from 'playwright-core';
import { execFileSync } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';

/** The browser binary (AGIO_CHROMIUM overrides Debian's). */
export const CHROMIUM = process.env.AGIO_CHROMIUM ?? '/usr/bin/chromium';

export const SCREENSHOTS = path.resolve(__dirname, '../../test-results/viewer');

/**
 * Starts headless Chromium. Without the background-networking flags it keeps calling Google's hosts, which this
 * machine's closed network refuses, many at a time.
 */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/**
 * Builds the viewer when its sources are newer than dist/ui (as the test command does first), so a test never drives a
 * stale app.
 */
export function ensureViewerBuilt(): void {
  execFileSync(path.resolve(__dirname, '../../scripts/ensure-deps'), { stdio: 'inherit' });
}

/** A page with what went wrong in it and every origin it requested. */
export interface WatchedPage {
  page: Page;
  /** Closes the page's context (and its streams, which would otherwise keep the bridge from closing). */
  close(): Promise<void>;
  errors: string[];
  origins: Set<string>;
  /** Every request as `METHOD /path?query`, in order. */
  requests: string[];
}

export async function openPage(browser: Browser): Promise<WatchedPage> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const watched: WatchedPage = { page, close: () => context.close(), errors: [], origins: new Set(), requests: [] };
  page.on('pageerror', (err) => watched.errors.push(err.message));
  page.on('request', (req) => {
    const url = new URL(req.url());
    watched.origins.add(url.origin);
    watched.requests.push(`${req.method()} ${url.pathname}${url.search}`);
  });
  return watched;
}

/** Saves a full-page screenshot as test-results/viewer/<name>.png. */
export async function screenshot(page: Page, name: string): Promise<string> {
  await mkdir(SCREENSHOTS, { recursive: true });
  const file = path.join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

/**
 * Opens `url` (a `#token=` link, as `agio serve` prints) and says yes to the viewer's prompt naming the link's tenant;
 * a link whose token the bridge refuses shows the sign-in form with its reason instead, and is left there.
 */
export async function signInByLink(page: Page, url: string): Promise<void> {
  await page.goto(url);
  const prompt = page.getByTestId('link-sign-in');
  await page.locator('[data-testid=link-sign-in], [data-testid=sign-in-error]').first().waitFor();
  if (await prompt.isVisible()) await prompt.click();
}

/**
 * One Chromium for a test file: launched (the viewer built first) before its tests, closed after them. `open()` gives
 * a new watched page; after each test every page is closed and must have had no script error (and `check` holds of
 * it, when given).
 */
export function useBrowserPages(check?: (watched: WatchedPage) => void): {
  open(): Promise<WatchedPage>;
  signedIn(url: string, token: string): Promise<WatchedPage>;
} {
  let browser: Browser;
  const pages: WatchedPage[] = [];
  beforeAll(async () => {
    ensureViewerBuilt();
    browser = await launchBrowser();
  });
  afterAll(async () => browser?.close());
  afterEach(async () => {
    const watched = pages.splice(0);
    await Promise.all(watched.map((w) => w.close()));
    for (const w of watched) {
      expect(w.errors).toEqual([]);
      check?.(w);
    }
  });
  const open = async () => {
    const watched = await openPage(browser);
    pages.push(watched);
    return watched;
  };
  return {
    open,
    /** A new page at `url` signed in as `token` (the #token= link `agio serve` prints, its prompt accepted). */
    async signedIn(url: string, token: string) {
      const watched = await open();
      await signInByLink(watched.page, `${url}#token=${token}`);
      return watched;
    },
  };
}
