// What the viewer's token may do (GET /whoami: its scopes), so a control it may not use is shown disabled and says why
// instead of answering 403 once clicked. The bridge checks every request either way; this only tells the person.
import { useEffect, useState } from 'preact/hooks';
import type { Api } from './api';

/** A token's scopes and roles, asked once per Api (undefined: unknown, e.g. an older bridge without /whoami scopes). */
const asked = new WeakMap<Api, Promise<{ scopes?: string[]; roles?: string[] } | undefined>>();

function whoami(api: Api): Promise<{ scopes?: string[]; roles?: string[] } | undefined> {
  let who = asked.get(api);
  if (!who) {
    who = api.get<{ scopes?: string[]; roles?: string[] }>('/whoami').catch(() => undefined);
    asked.set(api, who);
  }
  return who;
}

const scopesOf = (api: Api) => whoami(api).then((who) => who?.scopes);

/** The token's roles (empty until known; an approval escalated to a role is decided only by its tokens). */
export function useRoles(api: Api): string[] {
  const [roles, setRoles] = useState<string[]>([]);
  useEffect(() => {
    let live = true;
    void whoami(api).then((who) => live && setRoles(who?.roles ?? []));
    return () => {
      live = false;
    };
  }, [api]);
  return roles;
}

/** Whether the token may use `scope` (true until known otherwise; `admin` holds every scope). */
export function useScope(api: Api, scope: 'start' | 'decide' | 'control'): boolean {
  const [allowed, setAllowed] = useState(true);
  useEffect(() => {
    let live = true;
    void scopesOf(api).then((scopes) => {
      if (live && scopes) setAllowed(scopes.includes(scope) || scopes.includes('admin'));
    });
    return () => {
      live = false;
    };
  }, [api, scope]);
  return allowed;
}

/** Why a control is disabled: the scope the token lacks. */
export const lacksScope = (scope: string): string => `this token lacks the "${scope}" scope`;
