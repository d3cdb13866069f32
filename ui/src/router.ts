// The viewer's pages, at real URLs under /ui/ (the bridge answers every /ui/runs/… path and /ui/approvals with the
// app).
export type Route =
  | { page: 'runs'; agent?: string; status?: string }
  | { page: 'run'; runId: string }
  | { page: 'approvals' }
  | { page: 'compare'; a?: string; b?: string };

export const UI_BASE = '/ui/';

export function currentRoute(): Route {
  const match = /^\/ui\/runs\/(.+)$/.exec(location.pathname);
  if (match) return { page: 'run', runId: decodeURIComponent(match[1]) };
  if (/^\/ui\/approvals\/?$/.test(location.pathname)) return { page: 'approvals' };
  const query = new URLSearchParams(location.search);
  if (/^\/ui\/compare\/?$/.test(location.pathname))
    return { page: 'compare', a: query.get('a') ?? undefined, b: query.get('b') ?? undefined };
  return { page: 'runs', agent: query.get('agent') ?? undefined, status: query.get('status') ?? undefined };
}

export const runUrl = (runId: string) => `${UI_BASE}runs/${encodeURIComponent(runId)}`;

/** Two runs side by side (either left out: the page asks for it). */
export function compareUrl(a?: string, b?: string): string {
  const query = new URLSearchParams();
  if (a) query.set('a', a);
  if (b) query.set('b', b);
  const text = query.toString();
  return text ? `${UI_BASE}compare?${text}` : `${UI_BASE}compare`;
}

/** The approvals inbox. */
export const APPROVALS_URL = `${UI_BASE}approvals`;

export function listUrl(filters: { agent?: string; status?: string }): string {
  const query = new URLSearchParams();
  if (filters.agent) query.set('agent', filters.agent);
  if (filters.status) query.set('status', filters.status);
  const text = query.toString();
  return text ? `${UI_BASE}?${text}` : UI_BASE;
}

export function navigate(url: string, replace = false): void {
  if (replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  dispatchEvent(new PopStateEvent('popstate'));
}

/** An <a> click that stays in the app (plain clicks only: a middle or modified click opens a tab as usual). */
export function linkTo(url: string) {
  return {
    href: url,
    onClick: (e: MouseEvent) => {
      if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
      e.preventDefault();
      navigate(url);
    },
  };
}
