import { Router, type Response } from 'express';
import { parsePageRequest } from '../http/pagination';
import type { RouteDef } from '../http/routes';
import { AppError } from '../shared/errors';
import type { RecordingFile, RecordingsService } from './recordings.service';

/** Endpoints of recordings: the list of a meeting and the download of one file. */
export function recordingsRoutes(recordings: RecordingsService): RouteDef[] {
  return [
    {
      method: 'get',
      path: '/meetings/:id/recordings',
      scope: 'recordings:read',
      handler(req, res) {
        res.json(recordings.list(req.principal!, String(req.params.id), parsePageRequest(req)));
      },
    },
    {
      method: 'get',
      path: '/recordings/:recording_id/download',
      scope: 'recordings:read',
      async handler(req, res) {
        const id = String(req.params.recording_id);
        await sendRecording(res, id, recordings.file(req.principal!, id));
      },
    },
  ];
}

/**
 * GET /recordings/{id}/download?token=...: the signed download URL, which works without an API key (a
 * Slack message, a Zapier step or an email cannot carry one). Mounted before the key check; a request
 * without a token goes on to the key-authenticated route.
 */
export function signedDownloadRouter(recordings: RecordingsService): Router {
  const router = Router();
  router.get('/recordings/:recording_id/download', async (req, res, next) => {
    if (req.principal || typeof req.query.token !== 'string') return next();
    const id = String(req.params.recording_id);
    await sendRecording(res, id, recordings.fileByToken(id, req.query.token));
  });
  return router;
}

/** Serves a recording file as an attachment, with range requests (browsers seek in it). */
async function sendRecording(res: Response, id: string, file: RecordingFile): Promise<void> {
  res.attachment(file.fileName);
  await new Promise<void>((resolve, reject) =>
    res.sendFile(file.path, { headers: { 'Content-Type': file.contentType }, acceptRanges: true }, (err) =>
      err ? reject(sendError(res, id, err)) : resolve(),
    ),
  );
}

/** What a failed sendFile answers: 404 for a missing file, 416 with the file's size in Content-Range for a range outside it. */
function sendError(res: Response, id: string, err: Error): Error {
  const { code, status, headers } = err as Error & { code?: string; status?: number; headers?: Record<string, string> };
  if (code === 'ENOENT') return AppError.notFound(`Recording ${id}`);
  if (status !== 416) return err;
  res.removeHeader('Content-Disposition');
  if (headers?.['Content-Range']) res.set('Content-Range', headers['Content-Range']);
  return new AppError('range_not_satisfiable', 'The Range header asks for bytes outside the recording', { param: 'Range' });
}
