// What the viewer's token may do (GET /whoami: its scopes), so a control it may not use is shown disabled and says why
// instead of answering 403 once clicked. The bridge checks every request either way; this only tells the person.
import { useEffect, useState } from 'preact/hooks';
import type { Api } from './api';

/** A token's scopes, asked once per Api (undefined: unknown, e.g. an older bridge without /whoami scopes). */
const asked = new WeakMap<Api, Promise<string[] | undefined>>();

function scopesOf(api: Api): Promise<string[] | undefined> {
  let scopes = asked.get(api);
  if (!scopes) {
    scopes = api.get<{ scopes?: string[] }>('/whoami').then(
      (who) => who.scopes,
      () => undefined,
    );
    asked.set(api, scopes);
  }
  return scopes;
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
