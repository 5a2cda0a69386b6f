/**
 * The API benchmark's baseline: a bare Express 5 app in a child process (this file run as a script)
 * answering GET / with a constant JSON body shaped and sized like a meeting.
 */
import express from 'express';
import { freePort, spawnScript, withServer } from '../support';

/** The bare handler's constant answer, shaped and sized like a meeting so both serialize similar JSON. */
const BARE_BODY = {
  id: 'mtg_01jd8x3k2m0000000000000000',
  code: 'abc-defg-hij',
  title: 'Benchmark meeting',
  kind: 'meeting',
  slug: null,
  scheduled_at: '2026-05-01T09:00:00.000Z',
  duration_minutes: 60,
  settings: { waiting_room: false, transcription_auto: false },
  status: 'scheduled',
  join_url: 'http://127.0.0.1:8080/m/abc-defg-hij',
  organization_id: 'org_01jd8x3k2m0000000000000000',
  created_at: '2026-05-01T09:00:00.000Z',
  updated_at: '2026-05-01T09:00:00.000Z',
  started_at: null,
  ended_at: null,
};

/** Serves the bare app on PORT; runs in the child process. */
function runBareServer(): void {
  const app = express();
  app.get('/', (_req, res) => {
    res.json(BARE_BODY);
  });
  app.listen(Number(process.env.PORT), '127.0.0.1');
}

/** Runs `use` with the URL of the bare handler, started in a child process, and stops the child afterwards. */
export async function withBareServer<T>(use: (url: string) => Promise<T>): Promise<T> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  const child = spawnScript(__filename, { ...process.env, PORT: String(port) });
  return withServer(child, url, () => use(url));
}

if (require.main === module) runBareServer();
