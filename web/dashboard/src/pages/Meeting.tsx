import type { Session } from '../api';

/** Placeholder until the page lands. */
export function MeetingPage({ id }: { id: string; session: Session }) {
  return <h1>{id}</h1>;
}
