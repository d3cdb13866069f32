// The viewer's bearer token: the same token an API client sends, kept in this tab's sessionStorage (not a cookie,
// so no other site's page can make the browser send it). A `#token=…` link (agio serve prints one) is taken out of
// the address bar at once and only proposed: the viewer names its tenant and signs in once the person agrees.
const KEY = 'agio.token';

/** The token of a `#token=` link in the URL, which this removes from the address bar (and history); not yet saved. */
export function takeLinkToken(): string | undefined {
  const match = /(?:^#|&)token=([^&]+)/.exec(location.hash);
  if (!match) return undefined;
  history.replaceState(history.state, '', location.pathname + location.search);
  try {
    return decodeURIComponent(match[1]) || undefined;
  } catch {
    return undefined;
  }
}

export function loadToken(): string | undefined {
  return sessionStorage.getItem(KEY) ?? undefined;
}

export function saveToken(token: string): void {
  sessionStorage.setItem(KEY, token);
}

export function clearToken(): void {
  sessionStorage.removeItem(KEY);
}

/** The tenant a token opens (GET /whoami), or the bridge's reason it opens none. */
export async function tenantOfToken(token: string): Promise<{ tenant: string } | { refused: string }> {
  const res = await fetch('/whoami', { headers: { authorization: `Bearer ${token}` } });
  const body = (await res.json().catch(() => ({}))) as { tenant?: string; error?: { message?: string } };
  if (res.ok && body.tenant) return { tenant: body.tenant };
  return { refused: body.error?.message ?? `HTTP ${res.status}` };
}
