// The prompt a `#token=` link gets: which tenant the link's token opens (and which it would replace), and nothing
// happens until the person says so. A link is how someone else's token would reach this tab.
import { useEffect, useState } from 'preact/hooks';
import { tenantOfToken } from '../auth';

export function LinkSignIn({
  linkToken,
  currentToken,
  onAccept,
  onDecline,
  onRefused,
}: {
  linkToken: string;
  currentToken?: string;
  onAccept: () => void;
  onDecline: () => void;
  onRefused: (message: string) => void;
}) {
  const [tenant, setTenant] = useState<string>();
  const [current, setCurrent] = useState<string>();
  useEffect(() => {
    let live = true;
    void tenantOfToken(linkToken).then((answer) => {
      if (!live) return;
      if ('refused' in answer) onRefused(answer.refused);
      else setTenant(answer.tenant);
    });
    if (currentToken)
      void tenantOfToken(currentToken).then((answer) => live && 'tenant' in answer && setCurrent(answer.tenant));
    return () => void (live = false);
  }, [linkToken, currentToken]);

  if (tenant === undefined) return <p class="muted">Checking the link's token…</p>;
  return (
    <div class="card login" data-testid="link-sign-in-prompt">
      <h1>Sign in from a link?</h1>
      <p>
        This link signs you in to tenant <strong data-testid="link-tenant">{tenant}</strong>. Everything you start or
        approve here then belongs to that tenant, and whoever holds its token sees it.
      </p>
      {currentToken && (
        <p data-testid="link-replaces">
          It replaces the token you are signed in with{current ? ` (tenant ${current})` : ''}.
        </p>
      )}
      <p class="muted">Sign in only if you expected this link from your own agio serve or operator.</p>
      <div class="row">
        <button data-testid="link-sign-in" onClick={onAccept}>
          Sign in to {tenant}
        </button>
        <button class="secondary" data-testid="link-cancel" onClick={onDecline}>
          {currentToken ? 'Keep my current sign-in' : 'Cancel'}
        </button>
      </div>
    </div>
  );
}
