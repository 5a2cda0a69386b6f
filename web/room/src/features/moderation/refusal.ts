import { RoomRequestError } from '../../room-socket';

/** What a failed request says to people: the service's own message (its code and reason) when it refused, else the error's text. */
export function refusal(err: unknown): { code: string | null; message: string; reason?: string } {
  if (err instanceof RoomRequestError) {
    const { code, message, reason } = err.error;
    return { code, message, ...(typeof reason === 'string' ? { reason } : {}) };
  }
  return { code: null, message: err instanceof Error ? err.message : String(err) };
}
