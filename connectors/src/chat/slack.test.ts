import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { postSlackMessage, type SlackMessage } from './slack';

describe('the Slack client logs through the caller, never on raw stderr', () => {
  let server: http.Server;
  let slackApiUrl: string;
  let answer: { status: number; body: Record<string, unknown> } = { status: 200, body: { ok: true, ts: '1' } };
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body)));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    slackApiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  const message: SlackMessage = { text: 'hello', blocks: [] };

  it.each([
    [
      'a Slack warning in the answer',
      { status: 200, body: { ok: true, ts: '1', response_metadata: { warnings: ['superfluous_charset'] } } },
    ],
    [
      'several warnings with an error answer',
      { status: 200, body: { ok: false, error: 'channel_not_found', response_metadata: { warnings: ['a', 'b'] } } },
    ],
  ])('%s', async (_what, next) => {
    answer = next;
    const logged: { level: string; msg: string }[] = [];
    const logger = {
      debug: (msg: string) => logged.push({ level: 'debug', msg }),
      info: (msg: string) => logged.push({ level: 'info', msg }),
      warn: (msg: string) => logged.push({ level: 'warn', msg }),
      error: (msg: string) => logged.push({ level: 'error', msg }),
    };
    const stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const consoleCalls = (['log', 'info', 'warn', 'error', 'debug'] as const).map((m) =>
      jest.spyOn(console, m).mockImplementation(() => {}),
    );
    try {
      await postSlackMessage({ token: 'xoxb-test', channel: 'C1', message, slackApiUrl, logger });
      expect(stderr).not.toHaveBeenCalled();
      for (const spy of consoleCalls) expect(spy).not.toHaveBeenCalled();
    } finally {
      stderr.mockRestore();
      for (const spy of consoleCalls) spy.mockRestore();
    }
    expect(logged.filter((l) => l.level === 'warn').length).toBeGreaterThan(0);
    expect(logged.every((l) => l.msg.startsWith('slack: '))).toBe(true);
  });
});
