import type { Server } from 'node:http';
import { gzipSync } from 'node:zlib';
import { createApp } from '../app';
import { startTestCore, type TestCore } from '../testing/core';
import { createLogger } from '../shared/logger';

describe('malformed requests at the edges are 400s with problem+json and no error-level log line', () => {
  let core: TestCore;
  let server: Server;
  let base: string;
  let key: string;
  const logLines: { level: string; msg: string; stack?: string }[] = [];

  beforeAll(async () => {
    core = startTestCore();
    const logger = createLogger('debug', (line) => logLines.push(JSON.parse(line)));
    const app = createApp({ config: core.config, services: core.services, logger });
    server = await new Promise((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}/api/v1/public`;
    const { owner } = core.services.identity.ensureOwner();
    key = core.services.keys.create({ userId: owner.id, name: 'edges', scopes: ['meetings:read', 'meetings:write', 'webinars:write'] }).key;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    core.dispose();
  });
  beforeEach(() => {
    logLines.length = 0;
  });

  const meetingCount = () => (core.services.db.prepare('SELECT count(*) AS n FROM meetings').get() as { n: number }).n;
  const expectProblem400 = async (res: Response) => {
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const body = (await res.json()) as { param?: string };
    expect(body).toMatchObject({ status: 400 });
    expect(JSON.stringify(body)).not.toMatch(/at .*\.(js|ts):\d+/);
    expect(logLines.filter((l) => l.level === 'error' || l.stack)).toEqual([]);
    return body;
  };

  it.each([
    ['an invalid escape', '/meetings/%ZZ'],
    ['a lone percent sign', '/meetings/%'],
    ['truncated UTF-8', '/meetings/%E2%82'],
    ['overlong UTF-8', '/meetings/%C0%AF'],
    ['an encoded surrogate half', '/meetings/%ED%A0%80'],
    ['a bad escape in a nested route', '/meetings/%ZZ/participants'],
    ['a bad escape in a webinar slug', '/webinars/%FF/registrations'],
  ])('path parameter with %s', async (_what, path) => {
    const res = await fetch(base + path, {
      method: path.includes('registrations') ? 'POST' : 'GET',
      headers: { authorization: `Bearer ${key}` },
    });
    const body = await expectProblem400(res);
    expect(body.param).toBe('path');
  });

  it.each([
    ['a corrupt gzip body', 'gzip', Buffer.concat([gzipSync('{"title":"x"}').subarray(0, 12), Buffer.from('garbage-garbage')])],
    ['a body that is not gzip at all', 'gzip', Buffer.from('{"title":"x"}')],
    ['a truncated gzip body', 'gzip', gzipSync('{"title":"a longer title for a longer stream"}').subarray(0, 20)],
    ['a corrupt deflate body', 'deflate', Buffer.from('not deflate')],
  ])('%s', async (_what, encoding, raw) => {
    const res = await fetch(`${base}/meetings`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-encoding': encoding },
      body: raw,
    });
    const body = await expectProblem400(res);
    expect(body.param).toBe('body');
    expect(meetingCount()).toBe(0);
  });

  it('still reads a well-formed gzip body (the control)', async () => {
    const res = await fetch(`${base}/meetings`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: gzipSync('{"title":"Zipped"}'),
    });
    expect(res.status).toBe(201);
    expect(meetingCount()).toBe(1);
  });
});
