import { StrictMode, Suspense, lazy, useCallback, useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { api, ApiError, setCsrfToken, whenSignedOut, type Session } from './api';
import { Link, navigate, useLocation } from './router';
import { Developers } from './pages/Developers';
import { Integrations } from './pages/Integrations';
import { MeetingPage } from './pages/Meeting';
import { Meetings } from './pages/Meetings';
import { SignIn } from './pages/SignIn';
import { AcceptInvite } from './pages/AcceptInvite';
import { Team } from './pages/Team';
import { Badge, Button, ErrorNotice, messageOf } from './ui';
import './styles.css';
import './team.css';

const ProjectIde = lazy(() => import('./pages/ProjectIde'));

// `manage`: shown to owners and admins only (the API refuses members there anyway).
const NAV = [
  { href: '/meetings', label: 'Meetings', manage: false },
  { href: '/settings/developers', label: 'Developers', manage: true },
  { href: '/settings/integrations', label: 'Integrations', manage: true },
  { href: '/ide', label: 'Project', manage: true },
  { href: '/settings/team', label: 'Team', manage: true },
];

function App() {
  const { path } = useLocation();
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  // The session could not be asked for (the service unreachable, or a proxy's 502 in front of a stopped one): not signed
  // out, so no sign-in form. Only a 401 means signed out.
  const [unreachable, setUnreachable] = useState<string>();
  const load = useCallback(() => {
    setUnreachable(undefined);
    api<Session>('GET', '/session').then(
      (s) => {
        setCsrfToken(s.csrf_token);
        setSession(s);
      },
      (err: unknown) => (err instanceof ApiError && err.status === 401 ? setSession(null) : setUnreachable(messageOf(err))),
    );
  }, []);
  useEffect(() => {
    whenSignedOut(() => setSession(null));
    load();
  }, [load]);

  if (path === '/invite') {
    return (
      <AcceptInvite
        onAccepted={() => {
          navigate('/meetings', { replace: true });
          load();
        }}
      />
    );
  }
  if (unreachable) {
    return (
      <main id="main">
        <ErrorNotice error={unreachable} />
        <Button variant="primary" onClick={load}>
          Try again
        </Button>
      </main>
    );
  }
  if (session === undefined) return <p className="loading">Loading…</p>;
  if (session === null || path === '/sign-in') {
    return (
      <SignIn
        signedIn={session !== null}
        onSignedIn={() => {
          navigate('/meetings', { replace: true });
          load();
        }}
      />
    );
  }
  if (path === '/') {
    navigate('/meetings', { replace: true });
    return null;
  }
  const meeting = /^\/meetings\/([^/]+)$/.exec(path);
  const refused = !session.can_manage && NAV.some((n) => n.manage && path.startsWith(n.href));
  return (
    <div className="shell">
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        <span className="brand">svc</span>
        <nav aria-label="Main">
          {NAV.filter((n) => session.can_manage || !n.manage).map((n) => (
            <Link key={n.href} href={n.href} aria-current={path.startsWith(n.href) ? 'page' : undefined}>
              {n.label}
            </Link>
          ))}
        </nav>
        <div className="who">
          <span className="who-email" title={`${session.user.name} <${session.user.email}>`}>
            {session.user.email}
          </span>
          <Badge tone={session.user.role === 'member' ? 'muted' : 'info'}>{session.user.role}</Badge>
          <Button
            onClick={async () => {
              await api('POST', '/sign-out');
              setSession(null);
              navigate('/sign-in', { replace: true });
            }}
          >
            Sign out
          </Button>
        </div>
      </header>
      <main id="main" className={path === '/ide' ? 'wide' : undefined}>
        {refused ? (
          <p className="notice notice-error" role="alert">
            Your role ({session.user.role}) does not include this page: owners and admins manage keys, webhooks, integrations, the project
            and the team. <Link href="/meetings">Go to meetings</Link>.
          </p>
        ) : meeting ? (
          <MeetingPage id={decodeURIComponent(meeting[1]!)} session={session} />
        ) : path === '/meetings' ? (
          <Meetings session={session} />
        ) : path === '/settings/developers' ? (
          <Developers session={session} />
        ) : path === '/settings/integrations' ? (
          <Integrations session={session} />
        ) : path === '/settings/team' ? (
          <Team session={session} />
        ) : path === '/ide' ? (
          <Suspense fallback={<p className="loading">Loading the GraphQL IDE…</p>}>
            <ProjectIde session={session} />
          </Suspense>
        ) : (
          <p>
            No page here. <Link href="/meetings">Go to meetings</Link>.
          </p>
        )}
      </main>
    </div>
  );
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
