import path from 'node:path';
import { AppError } from '../shared/errors';
import { parsePageRequest } from '../http/pagination';
import { toPage } from '../shared/paging';
import type { RouteDef } from '../http/routes';
import type { MeetingsService } from '../meetings/meetings.service';
import type { RecordingRow, RecordingsRepo } from './recordings.repo';
import type { RecordingsService } from './recordings.service';

/** Endpoints of recordings: the list of a meeting and the download of one file. */
export function recordingsRoutes(
  meetings: MeetingsService,
  recordings: RecordingsService,
  repo: RecordingsRepo,
  recordingsDir: string,
): RouteDef[] {
  const view = (row: RecordingRow) => recordings.view(row);
  return [
    {
      method: 'get',
      path: '/meetings/:id/recordings',
      scope: 'recordings:read',
      handler(req, res) {
        const page = parsePageRequest(req);
        const meeting = meetings.find(req.principal!, String(req.params.id));
        res.json(toPage(repo.list(meeting.id, page.after, page.limit + 1), page.limit, view));
      },
    },
    {
      method: 'get',
      path: '/recordings/:recording_id/download',
      scope: 'recordings:read',
      async handler(req, res) {
        const id = String(req.params.recording_id);
        const row = repo.findById(id);
        // A recording of a meeting the key cannot reach is reported exactly like a missing one.
        if (row) meetings.find(req.principal!, row.meeting_id);
        if (!row || row.status !== 'ready' || !row.file_name) throw AppError.notFound(`Recording ${id}`);
        const file = path.join(recordingsDir, path.basename(row.file_name));
        res.attachment(path.basename(row.file_name));
        await new Promise<void>((resolve, reject) =>
          res.sendFile(file, { headers: { 'Content-Type': row.content_type ?? 'application/octet-stream' } }, (err) =>
            err ? reject((err as NodeJS.ErrnoException).code === 'ENOENT' ? AppError.notFound(`Recording ${id}`) : err) : resolve(),
          ),
        );
      },
    },
  ];
}
