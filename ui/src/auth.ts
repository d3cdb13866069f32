// The viewer's bearer token: the same token an API client sends, kept in this tab's sessionStorage (not a cookie,
// so no other site's page can make the browser send it). `#token=…` in the URL (agio serve prints such a link)
// signs in and is removed from the address bar at once.
const KEY = 'agio.token';

export function loadToken(): string | undefined {
  const match = /(?:^#|&)token=([^&]+)/.exec(location.hash);
  if (match) {
    saveToken(decodeURIComponent(match[1]));
    history.replaceState(history.state, '', location.pathname + location.search);
  }
  return sessionStorage.getItem(KEY) ?? undefined;
}

export function saveToken(token: string): void {
  sessionStorage.setItem(KEY, token);
}

export function clearToken(): void {
  sessionStorage.removeItem(KEY);
}
