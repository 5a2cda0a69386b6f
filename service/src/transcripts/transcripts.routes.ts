import type { RouteDef } from '../http/routes';
import type { TranscriptionService } from './transcription.service';
import type { TranscriptsService } from './transcripts.service';

/**
 * GET /meetings/{id}/transcript (404 until the meeting has one), POST to (re)transcribe its newest ready recording, and
 * GET /meetings/{id}/breakout-rooms/{room_id}/transcript (a breakout room's own transcript; 404 until it has one).
 */
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
      method: 'get',
      path: '/meetings/:id/breakout-rooms/:room_id/transcript',
      scope: 'transcripts:read',
      handler(req, res) {
        res.json(transcripts.findInBreakout(req.principal!, String(req.params.id), String(req.params.room_id)));
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
