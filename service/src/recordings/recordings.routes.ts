import { parsePageRequest } from '../http/pagination';
import type { RouteDef } from '../http/routes';
import { AppError } from '../shared/errors';
import type { RecordingsService } from './recordings.service';

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
        const file = recordings.file(req.principal!, id);
        res.attachment(file.fileName);
        await new Promise<void>((resolve, reject) =>
          res.sendFile(file.path, { headers: { 'Content-Type': file.contentType } }, (err) =>
            err ? reject((err as NodeJS.ErrnoException).code === 'ENOENT' ? AppError.notFound(`Recording ${id}`) : err) : resolve(),
          ),
        );
      },
    },
  ];
}
