import type { Session } from '../api';

/** Placeholder until the page lands. */
export function Meetings({ session }: { session: Session }) {
  return <h1>Meetings {session.user.email}</h1>;
}
