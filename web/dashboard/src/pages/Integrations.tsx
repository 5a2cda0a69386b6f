import type { Session } from '../api';

/** Placeholder until the page lands. */
export function Integrations({ session }: { session: Session }) {
  return <h1>Integrations {session.user.email}</h1>;
}
