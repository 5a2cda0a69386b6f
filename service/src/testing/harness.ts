import type { ProjectDatabase } from '../project/project.database';
import type { Config } from '../config';
import type { OrganizationRow, UserRow } from '../identity/identity.repo';
import type { Scope } from '../keys/scopes';
import { SCOPES } from '../keys/scopes';
import type { DeliveryWorker } from '../outbox/delivery.worker';
import type { Sender } from '../outbox/http-sender';
import { createDeliveryWorker, createJobWorker, mediaJobHandlers, type Services } from '../services';
import type { JobWorker } from '../jobs/job.worker';
import type { ManualClock } from '../shared/clock';
import { startTestCore } from './core';
import { freePort } from './postgres-server';
import { WorkerPool } from '../media/worker-pool';
import { portOf } from '../http/server';
import { startService } from '../runtime';
import type { Logger } from '../shared/logger';

/** One worker on loopback, on a port range picked at random so that test files running in parallel do not collide. */
function startTestWorkers(_config: Config, logger: Logger): Promise<WorkerPool> {
  const minPort = 41_000 + Math.floor(Math.random() * 900) * 20;
  return WorkerPool.start({ workers: 1, minPort, maxPort: minPort + 19, listenIp: '127.0.0.1', logger });
}

/** An answer as the tests see it. */
export interface TestResponse {
  status: number;
  headers: Headers;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- tests assert on arbitrary JSON
}

/** Options of one request: the key to send, a JSON body, a raw body and extra headers. */
export interface RequestOptions {
  key?: string;
  body?: unknown;
  raw?: string | Buffer;
  headers?: Record<string, string>;
  /** false: a redirect is answered as is (status and Location) instead of followed. */
  followRedirects?: boolean;
}

/** The real app on a real SQLite file in a temp dir, listening on a loopback port. */
export interface TestServer {
  url: string;
  services: Services;
  config: Config;
  clock: ManualClock;
  owner: UserRow;
  org: OrganizationRow;
  dataDir: string;
  /** The project database (started on first use; `await project.start()` to start it up front). */
  project: ProjectDatabase;
  /** The mediasoup workers, when started with `{ media: true }`. */
  media: WorkerPool | undefined;
  request(method: string, pathAndQuery: string, opts?: RequestOptions): Promise<TestResponse>;
  /** The production delivery worker on this server's services, not started (drive it with runOnce or start it). */
  deliveryWorker(opts?: { random?: () => number; send?: Sender }): DeliveryWorker;
  /** The production media job worker (transcribe with pocketsphinx, summarize) on this server's services, not started (drive it with runOnce). */
  jobWorker(): JobWorker;
  /** Creates a key for the owner; unlimited rate unless `rateLimited`. */
  key(scopes?: readonly Scope[], opts?: { org?: string; rateLimited?: boolean; expiresAt?: string }): string;
  close(): Promise<void>;
}

/**
 * Starts a test server, bootstrapped as production is; the clock is manual and starts at the real current time.
 * With `media`, one mediasoup worker on a free loopback port serves rooms and the room socket is attached. With
 * `ownBaseUrl`, the server listens on a port chosen up front and `SVC_BASE_URL` is its own address, so the links it
 * hands out (signed download URLs) work; otherwise they name `localhost:0`.
 */
export async function startTestServer(
  env: Record<string, string> = {},
  opts: { media?: boolean; ownBaseUrl?: boolean } = {},
): Promise<TestServer> {
  const listenPort = opts.ownBaseUrl ? await freePort() : 0;
  const core = startTestCore(opts.ownBaseUrl ? { PORT: String(listenPort), SVC_BASE_URL: `http://127.0.0.1:${listenPort}`, ...env } : env);
  const { config, services, clock, dataDir, logger } = core;
  const { owner } = services.identity.ensureOwner();
  const org = services.identity.listOrganizations()[0]!;
  // The production runtime; the tests drive the background workers themselves (deliveryWorker(), jobWorker()).
  const running = await startService(core, {
    host: '127.0.0.1',
    startMedia: async (cfg, log) => (opts.media ? startTestWorkers(cfg, log) : undefined),
    background: false,
  });
  const { media } = running;
  const url = `http://127.0.0.1:${portOf(running.server)}`;
  return {
    url,
    services,
    config,
    clock,
    owner,
    org,
    dataDir,
    project: core.project,
    media,
    async request(method, pathAndQuery, opts = {}) {
      const headers: Record<string, string> = { ...opts.headers };
      if (opts.key) headers.authorization = `Bearer ${opts.key}`;
      let body: string | Buffer | undefined = opts.raw;
      if (opts.body !== undefined) {
        body = JSON.stringify(opts.body);
        headers['content-type'] ??= 'application/json';
      }
      const res = await fetch(url + pathAndQuery, {
        method,
        headers,
        body,
        redirect: opts.followRedirects === false ? 'manual' : 'follow',
      });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        // not JSON: keep the text
      }
      return { status: res.status, headers: res.headers, body: parsed };
    },
    deliveryWorker(opts = {}) {
      return createDeliveryWorker(services, config, logger, { project: core.project, ...opts });
    },
    jobWorker() {
      return createJobWorker(services, mediaJobHandlers(services, config, logger), logger);
    },
    key(scopes = SCOPES, opts = {}) {
      return services.keys.create({
        userId: owner.id,
        name: 'test key',
        scopes: [...scopes],
        organizationId: opts.org ?? null,
        expiresAt: opts.expiresAt ?? null,
        rateLimitPerSecond: opts.rateLimited ? null : 1_000_000,
        rateLimitPerMinute: opts.rateLimited ? null : 1_000_000,
      }).key;
    },
    async close() {
      await running.stop({ dropConnections: true });
      core.dispose();
    },
  };
}
