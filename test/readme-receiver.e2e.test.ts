import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
import { signDelivery } from '@svc/connectors';

const ROOT = path.resolve(__dirname, '..');

/** The README's copy-paste receiver, extracted as a user would copy it. */
function readmeReceiver(): string {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('### Receiving and verifying a webhook'));
  const code = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  if (!code) throw new Error('README has no TypeScript receiver');
  return code;
}

/** A loopback port nothing listens on right now. */
async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('the README’s copy-paste webhook receiver', () => {
  it('accepts a real signed delivery and rejects a tampered, a stale and a wrongly signed one', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-readme-'));
    const port = await freePort();
    fs.writeFileSync(path.join(dir, 'receiver.ts'), readmeReceiver().replace('app.listen(3000)', `app.listen(${port}, '127.0.0.1')`));
    const secret = 'whsec_' + Buffer.alloc(32, 7).toString('base64');
    const child = spawn(process.execPath, [path.join(ROOT, 'node_modules/tsx/dist/cli.mjs'), path.join(dir, 'receiver.ts')], {
      env: { ...process.env, SVC_WEBHOOK_SECRET: secret, NODE_PATH: path.join(ROOT, 'node_modules') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    try {
      const body = JSON.stringify({
        id: 'evt_01',
        type: 'meeting.ended',
        created_at: new Date().toISOString(),
        data: { meeting: { code: 'abc-defg-hij' } },
      });
      const post = async (rawBody: string, secrets: string[], timestamp = Math.floor(Date.now() / 1000)) => {
        const headers = signDelivery({
          secrets,
          eventId: 'evt_01',
          eventType: 'meeting.ended',
          deliveryId: 'dlv_01',
          timestamp,
          rawBody: body,
        });
        return (await fetch(`http://127.0.0.1:${port}/hooks/svc`, { method: 'POST', headers: { ...headers }, body: rawBody })).status;
      };
      for (let i = 0; i < 100; i++) {
        try {
          await fetch(`http://127.0.0.1:${port}/`);
          break;
        } catch {
          await new Promise((r) => setTimeout(r, 100));
        }
      }
      expect(await post(body, [secret])).toBe(204);
      expect(await post(body.replace('abc', 'abd'), [secret])).toBe(401);
      expect(await post(body, [secret], Math.floor(Date.now() / 1000) - 300)).toBe(401);
      expect(await post(body, ['whsec_' + Buffer.alloc(32, 8).toString('base64')])).toBe(401);
      expect(await post(body, ['whsec_' + Buffer.alloc(32, 8).toString('base64'), secret])).toBe(204);
      await new Promise((r) => setTimeout(r, 100));
      expect(output.match(/meeting\.ended abc-defg-hij/g)).toHaveLength(1);
    } finally {
      child.kill();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
