// Sign-in: the bearer token an API client would send (agio serve prints a link that fills it in).
import { useState } from 'preact/hooks';

export function Login({ error, onToken }: { error?: string; onToken: (token: string) => void }) {
  const [value, setValue] = useState('');
  return (
    <form
      class="card login"
      onSubmit={(e) => {
        e.preventDefault();
        if (value.trim()) onToken(value.trim());
      }}
    >
      <h1>Sign in</h1>
      <p>
        Paste a bridge token (one of AGIO_TOKENS, or the one <code>agio serve</code> printed).
      </p>
      {error && (
        <p class="error" data-testid="sign-in-error">
          {error}
        </p>
      )}
      <input
        type="password"
        name="token"
        autocomplete="off"
        placeholder="token"
        value={value}
        onInput={(e) => setValue(e.currentTarget.value)}
      />
      <button type="submit">Sign in</button>
    </form>
  );
}
