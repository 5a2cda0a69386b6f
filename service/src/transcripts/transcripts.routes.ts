import type { RouteDef } from '../http/routes';
import type { TranscriptsService } from './transcripts.service';

/** GET /meetings/{id}/transcript: 404 until the meeting has one. */
export function transcriptsRoutes(transcripts: TranscriptsService): RouteDef[] {
  return [
    {
      method: 'get',
      path: '/meetings/:id/transcript',
      scope: 'transcripts:read',
      handler(req, res) {
        res.json(transcripts.find(req.principal!, String(req.params.id)));
      },
    },
  ];
}
