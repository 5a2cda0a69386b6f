import http from 'node:http';

/** One request a test receiver got. */
export interface ReceivedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  rawBody: Buffer;
  receivedAt: number;
}

/** How the receiver answers: a status, optional headers and body, optionally after a delay; `hang` never answers. */
export interface Reply {
  status?: number;
  headers?: Record<string, string>;
  body?: string;
  delayMs?: number;
  hang?: boolean;
}

/** A real HTTP receiver on 127.0.0.1 that records every request and answers as `reply` says. */
export interface TestReceiver {
  url: string;
  requests: ReceivedRequest[];
  reply: (req: ReceivedRequest) => Reply;
  close(): Promise<void>;
}

/** Starts a receiver answering 200 until told otherwise. */
export async function startReceiver(reply: (req: ReceivedRequest) => Reply = () => ({ status: 200 })): Promise<TestReceiver> {
  const requests: ReceivedRequest[] = [];
  const receiver = { requests, reply } as TestReceiver;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const received: ReceivedRequest = {
        method: req.method!,
        path: req.url!,
        headers: req.headers,
        rawBody: Buffer.concat(chunks),
        receivedAt: Date.now(),
      };
      requests.push(received);
      const answer = receiver.reply(received);
      if (answer.hang) return;
      setTimeout(() => {
        res.writeHead(answer.status ?? 200, answer.headers);
        res.end(answer.body ?? '');
      }, answer.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`;
  receiver.close = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return receiver;
}
