/**
 * The counting receiver of the throughput subject: a plain node:http server in a child process (this
 * file run as a script) that answers every POST with 204 once its body is read and GET /stats with
 * the count so far and the last request, kept to verify a signature after a run.
 */
import http from 'node:http';
import { freePort, spawnScript, withServer } from '../support';

const STATS_TIMEOUT_MS = 5_000;

/** One request the counting receiver kept, to verify a signature after a run. */
export interface Sample {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** The receiver's answer to GET /stats. */
export interface ReceiverStats {
  count: number;
  sample: Sample | null;
}

/** Serves the counting receiver on PORT; runs in the child process. */
function runReceiver(): void {
  let count = 0;
  let last: { path: string; headers: http.IncomingHttpHeaders; chunks: Buffer[] } | null = null;
  const server = http.createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/stats') {
      const sample = last && { path: last.path, headers: last.headers, body: Buffer.concat(last.chunks).toString('utf8') };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ count, sample }));
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      count++;
      last = { path: req.url ?? '', headers: req.headers, chunks };
      res.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(Number(process.env.PORT), '127.0.0.1');
}

/** Runs `use` with the base URL of a counting receiver started in a child process, and stops the child afterwards. */
export async function withReceiver<T>(use: (receiverUrl: string) => Promise<T>): Promise<T> {
  const port = await freePort();
  const receiverUrl = `http://127.0.0.1:${port}`;
  const child = spawnScript(__filename, { ...process.env, PORT: String(port) });
  return withServer(child, `${receiverUrl}/stats`, () => use(receiverUrl));
}

/** The receiver's count so far and the last request it got. */
export async function receiverStats(baseUrl: string): Promise<ReceiverStats> {
  const res = await fetch(`${baseUrl}/stats`, { signal: AbortSignal.timeout(STATS_TIMEOUT_MS) });
  return (await res.json()) as ReceiverStats;
}

if (require.main === module) runReceiver();
