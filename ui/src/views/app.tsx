// The viewer's shell: sign-in, the header and the current page.
import { useEffect, useMemo, useState } from 'preact/hooks';
import { Api } from '../api';
import { clearToken, loadToken, saveToken } from '../auth';
import { currentRoute, linkTo, UI_BASE, type Route } from '../router';
import { Login } from './login';
import { RunPage } from './run-page';
import { RunsPage } from './runs-page';

export function App() {
  const [token, setToken] = useState<string | undefined>(() => loadToken());
  const [signInError, setSignInError] = useState<string>();
  const [route, setRoute] = useState<Route>(currentRoute);
  useEffect(() => {
    const onPop = () => setRoute(currentRoute());
    addEventListener('popstate', onPop);
    return () => removeEventListener('popstate', onPop);
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
        {!api ? (
          <Login
            error={signInError}
            onToken={(value) => {
              saveToken(value);
              setSignInError(undefined);
              setToken(value);
            }}
          />
        ) : route.page === 'run' ? (
          <RunPage key={route.runId} api={api} runId={route.runId} />
        ) : (
          <RunsPage api={api} agent={route.agent} status={route.status} />
        )}
      </main>
    </>
  );
}
