// The viewer's shell: sign-in, the header and the current page.
import { useEffect, useMemo, useState } from 'preact/hooks';
import { Api } from '../api';
import { clearToken, loadToken, saveToken, takeLinkToken } from '../auth';
import { APPROVALS_URL, compareUrl, currentRoute, linkTo, UI_BASE, type Route } from '../router';
import { ApprovalsPage } from './approvals-page';
import { ComparePage } from './compare-page';
import { LinkSignIn } from './link-sign-in';
import { Login } from './login';
import { RunPage } from './run-page';
import { RunsPage } from './runs-page';

export function App() {
  const [token, setToken] = useState<string | undefined>(() => loadToken());
  // A #token= link's token waits for the person's yes (link-sign-in.tsx); the same token as now asks nothing.
  const [linkToken, setLinkToken] = useState<string | undefined>(() => {
    const fromLink = takeLinkToken();
    return fromLink === loadToken() ? undefined : fromLink;
  });
  const [signInError, setSignInError] = useState<string>();
  const [route, setRoute] = useState<Route>(currentRoute);
  useEffect(() => {
    const onPop = () => setRoute(currentRoute());
    // A link pasted into this tab changes only the hash: its token is taken out and proposed the same way.
    const onHash = () => {
      const fromLink = takeLinkToken();
      if (fromLink && fromLink !== loadToken()) setLinkToken(fromLink);
    };
    addEventListener('popstate', onPop);
    addEventListener('hashchange', onHash);
    return () => {
      removeEventListener('popstate', onPop);
      removeEventListener('hashchange', onHash);
    };
  }, []);
  const api = useMemo(
    () =>
      token
        ? new Api(token, (message) => {
            clearToken();
            setSignInError(message);
            setToken(undefined);
          })
        : undefined,
    [token],
  );

  return (
    <>
      <header class="top">
        <a class="brand" {...linkTo(UI_BASE)}>
          Agio
        </a>
        <nav>
          <a {...linkTo(UI_BASE)}>Runs</a>
          <a data-testid="nav-approvals" {...linkTo(APPROVALS_URL)}>
            Approvals
          </a>
          <a data-testid="nav-compare" {...linkTo(compareUrl())}>
            Compare
          </a>
        </nav>
        {token && (
          <button
            class="link"
            data-testid="sign-out"
            onClick={() => {
              clearToken();
              setToken(undefined);
            }}
          >
            Sign out
          </button>
        )}
      </header>
      <main>
        {linkToken ? (
          <LinkSignIn
            linkToken={linkToken}
            currentToken={token}
            onAccept={() => {
              saveToken(linkToken);
              setSignInError(undefined);
              setToken(linkToken);
              setLinkToken(undefined);
            }}
            onDecline={() => setLinkToken(undefined)}
            onRefused={(message) => {
              setLinkToken(undefined);
              if (!token) setSignInError(message);
            }}
          />
        ) : !api ? (
          <Login
            error={signInError}
            onToken={(value) => {
              saveToken(value);
              setSignInError(undefined);
              setToken(value);
            }}
          />
        ) : route.page === 'compare' ? (
          <ComparePage key={`${route.a}|${route.b}`} api={api} a={route.a} b={route.b} />
        ) : route.page === 'approvals' ? (
          <ApprovalsPage api={api} />
        ) : route.page === 'run' ? (
          <RunPage key={route.runId} api={api} runId={route.runId} />
        ) : (
          <RunsPage api={api} agent={route.agent} status={route.status} />
        )}
      </main>
    </>
  );
}
