import type { Request, Response } from 'express';
import type { IdempotencyService } from '../idempotency/idempotency.service';

/** Runs a create under the request's Idempotency-Key and sends its (possibly replayed) answer. */
export function sendIdempotent(
  req: Request,
  res: Response,
  idempotency: IdempotencyService,
  perform: () => { status: number; body: unknown },
): void {
  const outcome = idempotency.run(
    req.principal!.key.id,
    req.get('Idempotency-Key'),
    { method: req.method, path: req.path, body: req.body },
    perform,
  );
  if (outcome.replayed) res.set('Idempotent-Replayed', 'true');
  res.status(outcome.status).json(outcome.body);
}
