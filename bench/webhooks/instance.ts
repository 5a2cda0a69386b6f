/**
 * The service as every webhooks subject runs it: started through `bootstrap`, as production starts
 * it, on a fresh data directory, plus the seeding and the bounded waits the subjects share.
 */
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import { bootstrap } from '../../service/src/bootstrap';
import { loadConfig, type Config } from '../../service/src/config';
import type { Db } from '../../service/src/db/connection';
import type { Principal } from '../../service/src/identity/identity.service';
import { SCOPES } from '../../service/src/keys/scopes';
import type { DeliveryWorker } from '../../service/src/outbox/delivery.worker';
import type { Services } from '../../service/src/services';
import type { Logger } from '../../service/src/shared/logger';
import { makeTempDir, removeTempDir, withTimeout } from '../support';

/** The webinar the registrations go to. */
const SLUG = 'bench-webinar';
const WORKER_STOP_TIMEOUT_MS = 20_000;
const LISTEN_TIMEOUT_MS = 5_000;

/** The service's domain layer on a fresh SQLite file, with the owner's all-scopes API key and its principal. */
export interface Instance {
  db: Db;
  config: Config;
  services: Services;
  logger: Logger;
  key: string;
  principal: Principal;
  close(): Promise<void>;
}

/** The configuration every instance runs with: the defaults apart from allowing http webhook URLs on loopback. */
function benchConfig(dataDir: string): Config {
  // An explicit environment, so SVC_WEBHOOK_* settings of the caller's shell cannot change the defaults measured.
  return loadConfig({ SVC_DATA_DIR: dataDir, SVC_ALLOW_INSECURE_WEBHOOKS: 'true', SVC_LOG_LEVEL: 'warn', PORT: '0' });
}

/** The delivery worker's settings in every instance: the defaults, as benchConfig's explicit environment leaves them. */
export function workerSettings(): Config['webhooks'] {
  return loadConfig({}).webhooks;
}

/**
 * Starts the service's core on a fresh temp dir through `bootstrap` (database, migrations, master
 * key, services); `extraOrganizations` more organizations are created for the owner before the
 * principal is taken.
 */
export async function openInstance(prefix: string, extraOrganizations = 0): Promise<Instance> {
  const dir = await makeTempDir(prefix);
  const core = bootstrap(benchConfig(dir));
  try {
    const { services } = core;
    const { owner } = services.identity.ensureOwner();
    for (let i = 0; i < extraOrganizations; i++) services.identity.createOrganization(owner.id, `Organization ${i + 2}`);
    const { key } = services.keys.create({
      userId: owner.id,
      name: 'benchmark',
      scopes: [...SCOPES],
      rateLimitPerSecond: 1_000_000,
      rateLimitPerMinute: 60_000_000,
    });
    const principal = services.identity.authenticate(key)!;
    return {
      db: services.db,
      config: core.config,
      services,
      logger: core.logger,
      key,
      principal,
      async close() {
        core.close();
        await removeTempDir(dir);
      },
    };
  } catch (err) {
    core.close();
    throw err;
  }
}

/** Counts rows of `sql` (a `SELECT count(*) AS n ...`). */
export function countRows(db: Db, sql: string, ...params: unknown[]): number {
  return (db.prepare(sql).get(...params) as { n: number }).n;
}

/** A webinar, `endpoints` endpoints subscribed to registration.created at the receiver, and their secrets by URL path. */
export function seedEndpoints(inst: Instance, receiverUrl: string, endpoints: number): Map<string, string> {
  inst.services.meetings.create(inst.principal, { title: 'Benchmark webinar', kind: 'webinar', slug: SLUG });
  const secrets = new Map<string, string>();
  for (let i = 0; i < endpoints; i++) {
    const endpoint = inst.services.webhooks.create(inst.principal, { url: `${receiverUrl}/hook/${i}`, events: ['registration.created'] });
    secrets.set(`/hook/${i}`, endpoint.secret!);
  }
  return secrets;
}

/** Emits registration.created through the registrations service: one event, one delivery per endpoint. */
export function register(inst: Instance, n: number): void {
  const { created } = inst.services.registrations.register(inst.principal, SLUG, {
    email: `attendee-${n}@example.com`,
    name: `Attendee ${n}`,
  });
  if (!created) throw new Error(`registration ${n} was not new`);
}

/** Stops the delivery worker, failing if it has not stopped within WORKER_STOP_TIMEOUT_MS. */
export function stopWorker(worker: DeliveryWorker): Promise<void> {
  return withTimeout(worker.stop(), WORKER_STOP_TIMEOUT_MS, 'worker.stop()');
}

/** Waits until `server` (already told to listen) listens, within LISTEN_TIMEOUT_MS; resolves to its port. */
export async function listeningPort(server: http.Server, what: string): Promise<number> {
  await withTimeout(new Promise((resolve) => server.once('listening', resolve)), LISTEN_TIMEOUT_MS, what);
  return (server.address() as AddressInfo).port;
}
