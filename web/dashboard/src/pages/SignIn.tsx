import { useEffect, useRef, useState } from 'react';
import { api } from '../api';
import { Button, ErrorNotice, useAction } from '../ui';

/** Sign-in: a one-time link (its token in the URL fragment) is used at once; otherwise email and password. */
export function SignIn({ onSignedIn, signedIn }: { onSignedIn: () => void; signedIn: boolean }) {
  const [email, setEmail] = useState('');
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
        {link.pending && <p role="status">Signing you in…</p>}
        <ErrorNotice error={link.error} />
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void form.run(async () => {
              await api('POST', '/sign-in/password', { email, password });
              onSignedIn();
            });
          }}
        >
          <label>
            Email
            <input type="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} />
          </label>
          <label>
            Password
            <input
              type="password"
              autoComplete="current-password"
              required
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
          No password yet? Run <code>npx svc dashboard-link</code> on the server for a one-time sign-in link, or{' '}
          <code>npx svc users set-password EMAIL</code> to set one.
        </p>
      </div>
    </main>
  );
}
