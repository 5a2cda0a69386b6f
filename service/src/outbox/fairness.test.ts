import net from 'node:net';
import { seedMeeting } from '../testing/fixtures';
import { startTestServer, type TestServer } from '../testing/harness';
import { startReceiver, type TestReceiver } from '../testing/receiver';
import type { DeliveryWorker } from './delivery.worker';

describe('delivery fairness between organizations', () => {
  let t: TestServer;
  let receiver: TestReceiver;
  let tarpit: net.Server;
  const held = new Set<net.Socket>();
  let worker: DeliveryWorker;

  beforeEach(async () => {
    t = await startTestServer({
      SVC_ALLOW_INSECURE_WEBHOOKS: 'true',
      SVC_WEBHOOK_TIMEOUT_MS: '20000',
      SVC_WEBHOOK_ENDPOINTS_PER_ORGANIZATION: '8',
    });
    receiver = await startReceiver();
    // Accepts connections and never answers: every attempt there runs into the 20 s timeout.
    tarpit = net.createServer((socket) => {
      held.add(socket);
      socket.on('close', () => held.delete(socket));
    });
    await new Promise<void>((resolve) => tarpit.listen(0, '127.0.0.1', resolve));
    worker = t.deliveryWorker();
  });
  afterEach(async () => {
    for (const socket of held) socket.destroy();
    await worker.stop();
    await new Promise((resolve) => tarpit.close(resolve));
    await receiver.close();
    await t.close();
  });

  const endpointIn = async (organizationId: string, url: string) => {
    const res = await t.request('POST', '/api/v1/public/webhook-endpoints', {
      key: t.key(),
      body: { url, events: ['meeting.started'], organization_id: organizationId },
    });
    return res;
  };

  it("delivers a fast organization's event while another's eight endpoints hang on a tarpit with a backlog", async () => {
    const slow = t.services.identity.createOrganization(t.owner.id, 'Tarpit Inc');
    const tarpitUrl = `http://127.0.0.1:${(tarpit.address() as net.AddressInfo).port}/hook`;
    for (let i = 0; i < 8; i++) expect((await endpointIn(slow.id, tarpitUrl)).status).toBe(201);
    for (let i = 0; i < 12; i++) t.services.meetings.start(seedMeeting(t, {}, slow.id));
    expect((await endpointIn(t.org.id, receiver.url)).status).toBe(201);
    worker.start();
    const share = t.config.webhooks.perOrganizationConcurrency;
    expect(share).toBe(56);
    for (let i = 0; i < 500 && held.size < share; i++) await new Promise((r) => setTimeout(r, 10));
    expect(held.size).toBe(share);

    const fast = t.services.meetings.start(seedMeeting(t));
    for (let i = 0; i < 500 && receiver.requests.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(receiver.requests).toHaveLength(1);
    expect(JSON.parse(receiver.requests[0]!.rawBody.toString()).data.meeting.id).toBe(fast.id);
    // No tarpit attempt has ended (each waits for its 20 s timeout): the fast delivery did not wait for them,
    // and the tarpit's organization holds exactly its share of the pool.
    const attempts = () => t.services.db.prepare('SELECT count(*) FROM delivery_attempts').pluck().get();
    for (let i = 0; i < 500 && attempts() === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(attempts()).toBe(1);
    expect(held.size).toBe(share);
  });

  it('limits the webhook endpoints of one organization with a clear conflict, leaving other organizations free', async () => {
    const other = t.services.identity.createOrganization(t.owner.id, 'Other');
    for (let i = 0; i < 8; i++) expect((await endpointIn(t.org.id, receiver.url)).status).toBe(201);
    const refused = await endpointIn(t.org.id, receiver.url);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'conflict', detail: expect.stringContaining('8 webhook endpoints, the most allowed') });
    expect((await endpointIn(other.id, receiver.url)).status).toBe(201);
  });
});
