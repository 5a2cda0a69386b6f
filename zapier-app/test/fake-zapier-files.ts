import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A file the app stashed: the key Zapier's store gave it, and what was uploaded under it. */
export interface StashedFile {
  key: string;
  filename: string;
  contentType: string;
  bytes: Buffer;
}

/**
 * Zapier's file store as zapier-platform-core's `z.stashFile` uses it, on loopback: the RPC call
 * `get_presigned_upload_post_data` (checked for the deploy key) and the presigned multipart POST (checked for
 * the policy fields it handed out), then a GET of the stored file at the URL `stashFile` returns.
 */
export interface FakeZapierFiles {
  /** What ZAPIER_BASE_ENDPOINT must be for core's RPC client to call this fake. */
  baseEndpoint: string;
  deployKey: string;
  stashed: StashedFile[];
  /** Requests this fake refused, with why; a test expects none. */
  refused: string[];
  close(): Promise<void>;
}

async function bodyOf(req: http.IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Starts the fake on a loopback port. */
export async function startFakeZapierFiles(): Promise<FakeZapierFiles> {
  const deployKey = `deploy_${randomBytes(8).toString('hex')}`;
  const issued = new Map<string, string>();
  const stashed: StashedFile[] = [];
  const refused: string[] = [];
  let base = '';

  const refuse = (res: http.ServerResponse, status: number, why: string) => {
    refused.push(why);
    res.writeHead(status, { 'content-type': 'text/plain' }).end(why);
  };

  const server = http.createServer((req, res) => {
    void (async () => {
      const body = await bodyOf(req);
      if (req.method === 'POST' && req.url === '/platform/rpc/cli') {
        if (req.headers['x-deploy-key'] !== deployKey) return refuse(res, 401, 'rpc without the deploy key');
        const call = JSON.parse(body.toString('utf8')) as { id: string; method: string };
        if (call.method !== 'get_presigned_upload_post_data') return refuse(res, 400, `unexpected rpc method ${call.method}`);
        const key = `cli-platform/${randomBytes(8).toString('hex')}`;
        const policy = randomBytes(8).toString('hex');
        issued.set(key, policy);
        const result = { url: `${base}/files/`, fields: { key, policy, 'x-amz-signature': 'fake' } };
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id: call.id, result }));
        return;
      }
      if (req.method === 'POST' && req.url === '/files/') {
        const form = await new Request(`${base}/files/`, {
          method: 'POST',
          headers: { 'content-type': String(req.headers['content-type']) },
          body,
        }).formData();
        const key = String(form.get('key'));
        if (!issued.has(key) || issued.get(key) !== form.get('policy')) return refuse(res, 403, 'upload with a key or policy never issued');
        const file = form.get('file');
        if (!(file instanceof Blob)) return refuse(res, 400, 'upload without a file part');
        stashed.push({
          key,
          filename: (file as File).name,
          contentType: String(form.get('Content-Type')),
          bytes: Buffer.from(await file.arrayBuffer()),
        });
        res.writeHead(204).end();
        return;
      }
      const found = req.method === 'GET' && stashed.find((f) => req.url === `/files/${f.key}`);
      if (found) {
        res.writeHead(200, { 'content-type': found.contentType }).end(found.bytes);
        return;
      }
      refuse(res, 404, `unexpected ${req.method} ${req.url}`);
    })().catch((error: unknown) => refuse(res, 500, String(error)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    baseEndpoint: base,
    deployKey,
    stashed,
    refused,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
