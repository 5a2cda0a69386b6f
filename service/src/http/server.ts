import http from 'node:http';
import type { Express } from 'express';

/** How the HTTP server treats slow and numerous connections. */
export interface ServerLimits {
  /** Time a client has to send the complete request headers. */
  headersTimeoutMs: number;
  /** Time a client has to send the whole request (bodies are at most 1 MB). */
  requestTimeoutMs: number;
  /** How long an idle keep-alive connection stays open. */
  keepAliveTimeoutMs: number;
  /** How often the server looks for connections past those timeouts. */
  checkIntervalMs: number;
  /** Connections open at once; more are refused (closed at once). */
  maxConnections: number;
}

/**
 * The service's limits: API requests are small (headers well under 16 KB, bodies at most 1 MB), so a
 * client that needs more than 10 s for its headers or 30 s for a request is holding a slot, not
 * sending one; 1,024 connections is far beyond what one process serves well and below the default
 * open-file limit.
 */
export const SERVER_LIMITS: ServerLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  checkIntervalMs: 1_000,
  maxConnections: 1_024,
};

/** The timeouts every server of the service (HTTP and HTTPS) is created with. */
export function serverOptions(limits: ServerLimits = SERVER_LIMITS): http.ServerOptions {
  return {
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    connectionsCheckingInterval: limits.checkIntervalMs,
  };
}

/** Starts `server` listening on `port`/`host` (0: a free port) with the connection limit; resolves once it listens. */
export function listenOn<S extends http.Server>(server: S, port: number, host: string, limits: ServerLimits = SERVER_LIMITS): Promise<S> {
  server.maxConnections = limits.maxConnections;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}

/** Starts serving `app` on `port`/`host` with the given limits; resolves once listening. */
export function listen(app: Express, port: number, host: string, limits: ServerLimits = SERVER_LIMITS): Promise<http.Server> {
  return listenOn(http.createServer(serverOptions(limits), app), port, host, limits);
}

/** The port a listening server was given (the one asked for, or the free one picked for 0). */
export function portOf(server: http.Server): number {
  const address = server.address();
  return typeof address === 'object' && address ? address.port : 0;
}
