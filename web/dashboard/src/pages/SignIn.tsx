import { useEffect, useRef, useState } from 'react';
import { api } from '../api';
import { Button, ErrorNotice, useAction, useLoad } from '../ui';

const EMAIL_KEY = 'svc.dashboard.email';

/** Keeps the email this browser last signed in with (or was invited as), so the sign-in page can name the account. */
export function rememberEmail(email: string): void {
  try {
    localStorage.setItem(EMAIL_KEY, email);
  } catch {
    // Storage may be off (private mode); the page then just asks.
  }
}

function rememberedEmail(): string {
  try {
    return new URLSearchParams(location.search).get('email') ?? localStorage.getItem(EMAIL_KEY) ?? '';
  } catch {
    return '';
  }
}

/**
 * Sign-in: a one-time link (its token in the URL fragment) is used at once; otherwise email and password. The page
 * names the account: the organization and the service's address, and the email this browser last used.
 */
export function SignIn({ onSignedIn, signedIn }: { onSignedIn: () => void; signedIn: boolean }) {
  const about = useLoad(() => api<{ organization: string | null; base_url: string }>('GET', '/sign-in/about'), []);
  const [known] = useState(rememberedEmail);
  const [email, setEmail] = useState(known);
  const [password, setPassword] = useState('');
  const link = useAction();
  const form = useAction();
  const started = useRef(false);

  useEffect(() => {
    const token = new URLSearchParams(location.hash.slice(1)).get('token');
    if (!token || started.current) return;
    started.current = true;
    history.replaceState(null, '', '/sign-in');
    void link.run(async () => {
      await api('POST', '/sign-in/link', { token });
      onSignedIn();
    });
  }, [link, onSignedIn]);

  useEffect(() => {
    if (signedIn && !location.hash) onSignedIn();
  }, [signedIn, onSignedIn]);

  return (
    <main className="sign-in" id="main">
      <div className="card narrow">
        <h1>Sign in to svc</h1>
        {about.data && (
          <p className="account">
            {about.data.organization && (
              <>
                <strong>{about.data.organization}</strong> on{' '}
              </>
            )}
            <strong>{new URL(about.data.base_url).host}</strong>
            {known && (
              <>
                , as <strong>{known}</strong>
              </>
            )}
          </p>
        )}
        {link.pending && <p role="status">Signing you in…</p>}
        <ErrorNotice error={link.error} />
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void form.run(async () => {
              await api('POST', '/sign-in/password', { email, password });
              rememberEmail(email);
              onSignedIn();
            });
          }}
        >
          <label>
            Email
            <input
              type="email"
              autoComplete="username"
              required
              value={email}
              autoFocus={!known}
              onChange={(e) => setEmail(e.target.value)}
            />
          </label>
          <label>
            Password
            <input
              type="password"
              autoComplete="current-password"
              required
              autoFocus={!!known}
              value={password}
              onChange={(e) => setPassword(e.target.value)}
            />
          </label>
          <ErrorNotice error={form.error} />
          <Button type="submit" variant="primary" disabled={form.pending}>
            Sign in
          </Button>
        </form>
        <p className="hint">
          Invited? Open the link from your invitation to choose a password. No password yet? Run <code>npx svc dashboard-link</code> on the
          server for a one-time sign-in link, or <code>npx svc users set-password EMAIL</code> to set one.
        </p>
      </div>
    </main>
  );
}
