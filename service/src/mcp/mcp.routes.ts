import { hostHeaderValidation } from '@modelcontextprotocol/sdk/server/middleware/hostHeaderValidation.js';
import { Router, type Request, type RequestHandler } from 'express';
import type { Config } from '../config';
import { allowedHostnames, isLoopbackOrigin } from '../http/allowed-hosts';
import { requireKey } from '../http/auth';
import { authenticate } from '../identity/identity.routes';
import { jsonBody } from '../http/body';
import { rateLimit, type RateLimiter } from '../http/rate-limit';
import type { IdentityService } from '../identity/identity.service';
import type { Clock } from '../shared/clock';
import type { Logger } from '../shared/logger';
import type { McpCatalog } from './mcp.server';
import type { McpServices } from './mcp.tool';

/** The version the MCP server reports in initialize. */
export const MCP_SERVER_VERSION = '0.1.0';

/** What the MCP endpoint needs: the services, the base URL (for the allowed hosts), and the REST API's rate limiter, so a key has one budget. */
export interface McpEndpointDeps {
  config: Config;
  /** The tools' services, and the identity and clock that authenticate and rate-limit the caller. */
  services: McpServices & { identity: IdentityService; clock: Clock };
  logger: Logger;
  limiter: RateLimiter;
}

/** True for no Origin (not a browser), the base URL's origin, or a loopback origin. */
export function isAllowedOrigin(origin: string | undefined, baseUrl: string): boolean {
  if (origin === undefined) return true;
  try {
    const url = new URL(origin);
    return url.origin === new URL(baseUrl).origin || isLoopbackOrigin(url);
  } catch {
    return false;
  }
}

function rpcError(status: number, message: string, headers: Record<string, string> = {}, code = -32000): RequestHandler {
  return (_req, res) => {
    res.status(status).set(headers).json({ jsonrpc: '2.0', error: { code, message }, id: null });
  };
}

/** JSON when the client ranks application/json at least as high as text/event-stream, else one SSE stream per request. */
function wantsJson(req: Request): boolean {
  return req.accepts(['application/json', 'text/event-stream']) !== 'text/event-stream';
}

/**
 * `POST /api/v1/mcp`: a stateless Streamable HTTP MCP server. Each request gets its own server for the caller's key
 * (no session to keep, nothing shared between requests); GET and DELETE, which only sessions use, answer 405.
 */
export function mcpRouter({ config, services, logger, limiter }: McpEndpointDeps): Router {
  let mcp: {
    catalog: McpCatalog;
    Transport: typeof import('@modelcontextprotocol/sdk/server/streamableHttp.js').StreamableHTTPServerTransport;
  };
  // The MCP SDK (its protocol schemas take ~25 MB) is loaded at the first call: a service nobody's agent uses holds none of it.
  const loadMcp = () => {
    /* eslint-disable @typescript-eslint/no-require-imports -- a lazy require: the build is CommonJS */
    mcp ??= {
      catalog: new (require('./mcp.server') as typeof import('./mcp.server')).McpCatalog(),
      Transport: (
        require('@modelcontextprotocol/sdk/server/streamableHttp.js') as typeof import('@modelcontextprotocol/sdk/server/streamableHttp.js')
      ).StreamableHTTPServerTransport,
    };
    /* eslint-enable @typescript-eslint/no-require-imports */
    return mcp;
  };
  const router = Router();
  const badOrigin = rpcError(403, 'Forbidden: this Origin may not call the MCP endpoint');
  const originCheck: RequestHandler = (req, res, next) =>
    isAllowedOrigin(req.get('Origin'), config.baseUrl) ? next() : badOrigin(req, res, next);
  router.use(hostHeaderValidation(allowedHostnames(config.baseUrl)));
  router.use(originCheck);
  router.use(authenticate(services.identity));
  router.use(rateLimit(limiter, services.clock));
  router.use(requireKey);
  const batch = rpcError(
    400,
    'Invalid Request: JSON-RPC batches are not supported (MCP 2025-06-18 removed them); send one message per request',
    {},
    -32600,
  );
  // A batch would run many calls for one request's share of the rate limit.
  const refuseBatch: RequestHandler = (req, res, next) => (Array.isArray(req.body) ? batch(req, res, next) : next());
  const handle: RequestHandler = async (req, res) => {
    const { catalog, Transport } = loadMcp();
    const server = catalog.serverFor({ principal: req.principal!, services }, logger, MCP_SERVER_VERSION);
    const transport = new Transport({ sessionIdGenerator: undefined, enableJsonResponse: wantsJson(req) });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  };
  router.post('/', jsonBody, refuseBatch, handle);
  router.all('/', rpcError(405, 'Method not allowed: this MCP endpoint is stateless; send JSON-RPC messages with POST', { Allow: 'POST' }));
  return router;
}
