import { t } from './i18n';
import type { CredentialRequest, JoinCredential, RoomInfo, UnavailableReason } from './protocol';

/** Why the service would not give a credential, in the terms the page shows. */
export type CredentialFailure =
  | { kind: 'unavailable'; reason: UnavailableReason }
  | { kind: 'not_open'; startsAt: string; opensAt: string }
  | { kind: 'host_link_taken'; message: string }
  | { kind: 'unauthorized'; message: string }
  | { kind: 'invalid'; message: string; field: string | null }
  | { kind: 'locked'; message: string }
  | { kind: 'network'; message: string };

/** A refused or failed credential request. */
export class CredentialError extends Error {
  constructor(readonly failure: CredentialFailure) {
    super(
      'message' in failure ? failure.message : 'reason' in failure ? `meeting ${failure.reason}` : `meeting opens at ${failure.opensAt}`,
    );
  }
}

interface Problem {
  code?: string;
  detail?: string;
  reason?: string;
  starts_at?: string;
  opens_at?: string;
  errors?: { param: string; message: string }[];
}

/** The meeting behind a code, or why there is none to join. */
export async function fetchRoomInfo(code: string): Promise<{ ok: true; info: RoomInfo } | { ok: false; reason: UnavailableReason }> {
  const res = await fetch(`/rooms/v1/${encodeURIComponent(code)}`, { headers: { accept: 'application/json' } });
  if (res.status === 404) return { ok: false, reason: 'not_found' };
  if (!res.ok) throw new Error(t('error.serviceAnswered', { status: res.status }));
  const info = (await res.json()) as RoomInfo;
  if (!info.available) return { ok: false, reason: info.unavailable_reason ?? 'ended' };
  return { ok: true, info };
}

/** A join credential for the room's socket; throws `CredentialError` with what went wrong. */
export async function requestCredential(code: string, body: CredentialRequest): Promise<JoinCredential> {
  let res: Response;
  try {
    res = await fetch(`/rooms/v1/${encodeURIComponent(code)}/credentials`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(body),
    });
  } catch (err) {
    throw new CredentialError({ kind: 'network', message: String(err) });
  }
  if (res.status === 201 || res.status === 200) return (await res.json()) as JoinCredential;
  const problem = (await res.json().catch(() => ({}))) as Problem;
  if (res.status === 404) throw new CredentialError({ kind: 'unavailable', reason: 'not_found' });
  if (problem.code === 'meeting_unavailable' && problem.reason === 'not_open' && problem.starts_at && problem.opens_at) {
    throw new CredentialError({ kind: 'not_open', startsAt: problem.starts_at, opensAt: problem.opens_at });
  }
  if (res.status === 403 && problem.reason === 'host_link_taken') {
    throw new CredentialError({ kind: 'host_link_taken', message: t('error.hostLinkTaken') });
  }
  if (problem.code === 'meeting_unavailable' || (res.status === 409 && problem.reason)) {
    throw new CredentialError({ kind: 'unavailable', reason: problem.reason === 'cancelled' ? 'cancelled' : 'ended' });
  }
  if (problem.reason === 'meeting_locked') throw new CredentialError({ kind: 'locked', message: t('prejoin.locked') });
  if (res.status === 401) {
    throw new CredentialError({ kind: 'unauthorized', message: t('error.linkInvalid') });
  }
  if (res.status === 400) {
    const first = problem.errors?.[0];
    throw new CredentialError({
      kind: 'invalid',
      message: first
        ? first.param === 'name'
          ? t('error.invalidName', { message: first.message })
          : t('error.invalidField', { field: first.param, message: first.message })
        : (problem.detail ?? t('error.invalidRequest')),
      field: first?.param ?? null,
    });
  }
  throw new CredentialError({ kind: 'network', message: problem.detail ?? t('error.serviceAnswered', { status: res.status }) });
}
