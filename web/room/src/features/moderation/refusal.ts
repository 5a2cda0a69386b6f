import { RoomRequestError } from '../../room-socket';

/** What a failed request says to people: the service's own message (and its code) when it refused, else the error's text. */
export function refusal(err: unknown): { code: string | null; message: string } {
  if (err instanceof RoomRequestError) return { code: err.error.code, message: err.error.message };
  return { code: null, message: err instanceof Error ? err.message : String(err) };
}
