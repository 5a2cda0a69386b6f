import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { httpSender } from './http-sender';

/** A listening socket that never accepts (Python, backlog 0): once its queue is full, a connect to it hangs in SYN. */
async function neverAccepting(): Promise<{ port: number; stop(): void }> {
  const child: ChildProcess = spawn('python3', [
    '-c',
    'import socket,sys,time\ns=socket.socket()\ns.bind(("127.0.0.1",0))\ns.listen(0)\nprint(s.getsockname()[1],flush=True)\ntime.sleep(60)',
  ]);
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.once('data', (d: Buffer) => resolve(Number(d.toString().trim())));
    child.once('exit', (code) => reject(new Error(`listener exited with ${code}`)));
  });
  return { port, stop: () => child.kill('SIGKILL') };
}

describe('httpSender', () => {
  it('gives up on a connection that never completes after the connect timeout, long before the answer timeout', async () => {
    const listener = await neverAccepting();
    const fillers: net.Socket[] = [];
    try {
      // Fill the accept queue so that the kernel drops further SYNs.
      for (let i = 0; i < 8; i++) fillers.push(net.connect(listener.port, '127.0.0.1').on('error', () => {}));
      const send = httpSender({ timeoutMs: 20_000, connectTimeoutMs: 300, allowPrivateTargets: true });
      const result = await send(`http://127.0.0.1:${listener.port}/hook`, {}, '{}');
      expect(result.error).toBe('could not connect within 300 ms');
      expect(result.durationMs).toBeLessThan(20_000);
    } finally {
      for (const socket of fillers) socket.destroy();
      listener.stop();
    }
  });

  it('keeps waiting for the answer of a connected receiver until the answer timeout', async () => {
    const server = net.createServer(() => {});
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const send = httpSender({ timeoutMs: 600, connectTimeoutMs: 100, allowPrivateTargets: true });
      const result = await send(`http://127.0.0.1:${(server.address() as net.AddressInfo).port}/hook`, {}, '{}');
      expect(result.error).toBe('no answer within 600 ms');
    } finally {
      server.close();
    }
  });
});
