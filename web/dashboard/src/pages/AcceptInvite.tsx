import { useEffect, useState } from 'react';
import { api, type Role } from '../api';
import { Link } from '../router';
import { Button, ErrorNotice, messageOf, useAction } from '../ui';
import { rememberEmail } from './SignIn';
import { ROLE_HELP } from './Team';

interface Preview {
  email: string;
  role: Role;
  organization: { id: string; name: string };
  expires_at: string;
}

/**
 * Accepting an invitation: the link's token (in the URL fragment, taken out of the address bar at once) says who is
 * invited; the invitee chooses a name and password and lands signed in.
 */
export function AcceptInvite({ onAccepted }: { onAccepted: () => void }) {
  const [token] = useState(() => new URLSearchParams(location.hash.slice(1)).get('token') ?? '');
  const [preview, setPreview] = useState<Preview>();
  const [problem, setProblem] = useState<string>();
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const accept = useAction();

  useEffect(() => {
    if (location.hash) history.replaceState(null, '', '/invite');
    if (!token) {
      setProblem('This page needs the whole invitation link, with its #token=… part; ask whoever invited you for the link again.');
      return;
    }
    api<Preview>('POST', '/invites/preview', { token }).then(setPreview, (err: unknown) => setProblem(messageOf(err, 'reload')));
  }, [token]);

  return (
    <main className="sign-in" id="main">
      <div className="card narrow">
        {!preview && !problem && <p role="status">Checking your invitation…</p>}
        {problem && (
          <>
            <h1>Invitation not valid</h1>
            <ErrorNotice error={problem} />
            <p className="hint">
              Already accepted it? <Link href="/sign-in">Sign in</Link> with your email and password.
            </p>
          </>
        )}
        {preview && (
          <>
            <h1>Join {preview.organization.name}</h1>
            <p className="account">
              You are invited as <strong>{preview.email}</strong>, with the role <strong>{preview.role}</strong>.
            </p>
            <p className="hint">{ROLE_HELP[preview.role]}</p>
            <form
              onSubmit={(e) => {
                e.preventDefault();
                void accept.run(async () => {
                  await api('POST', '/invites/accept', { token, name, password });
                  rememberEmail(preview.email);
                  onAccepted();
                });
              }}
            >
              <input type="email" autoComplete="username" value={preview.email} readOnly hidden />
              <label>
                Your name
                <input required maxLength={100} autoComplete="name" value={name} onChange={(e) => setName(e.target.value)} />
              </label>
              <label>
                Choose a password
                <input
                  type="password"
                  required
                  minLength={10}
                  maxLength={200}
                  autoComplete="new-password"
                  aria-describedby="password-hint"
                  value={password}
                  onChange={(e) => setPassword(e.target.value)}
                />
              </label>
              <p className="hint" id="password-hint">
                At least 10 characters. You sign in with {preview.email} and this password.
              </p>
              <ErrorNotice error={accept.error} />
              <Button type="submit" variant="primary" disabled={accept.pending}>
                Join and sign in
              </Button>
            </form>
          </>
        )}
      </div>
    </main>
  );
}
