import type { Session } from '../api';

/** Placeholder until the page lands. */
export default function ProjectIde({ session }: { session: Session }) {
  return <h1>Project {session.user.email}</h1>;
}
