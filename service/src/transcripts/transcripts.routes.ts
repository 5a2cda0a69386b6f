import type { RouteDef } from '../http/routes';
import type { TranscriptionService } from './transcription.service';
import type { TranscriptsService } from './transcripts.service';

/** GET /meetings/{id}/transcript (404 until the meeting has one) and POST to (re)transcribe its newest ready recording. */
export function transcriptsRoutes(transcripts: TranscriptsService, transcription: TranscriptionService): RouteDef[] {
  return [
    {
      method: 'get',
      path: '/meetings/:id/transcript',
      scope: 'transcripts:read',
      handler(req, res) {
        res.json(transcripts.find(req.principal!, String(req.params.id)));
      },
    },
    {
      method: 'post',
      path: '/meetings/:id/transcript',
      scope: 'meetings:write',
      handler(req, res) {
        res.status(202).json(transcription.request(req.principal!, String(req.params.id)));
      },
    },
  ];
}
