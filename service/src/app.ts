import express, { Router, type Express } from 'express';
import type { Config } from './config';
import { requireKey } from './http/auth';
import { jsonBody } from './http/body';
import { errorHandler, notFoundHandler } from './http/errors';
import { RateLimiter, rateLimit } from './http/rate-limit';
import { requestId } from './http/request-id';
import { mountRoutes, type RouteDef } from './http/routes';
import { dashboardPagesRouter } from './dashboard/dashboard-pages.routes';
import { dashboardApiRouter, type DashboardApiDeps } from './dashboard/dashboard.routes';
import { eventsRoutes } from './events/events.routes';
import { authenticate, identityRoutes } from './identity/identity.routes';
import { integrationsRoutes } from './integrations/integrations.routes';
import { meetingsRoutes } from './meetings/meetings.routes';
import { mcpRouter } from './mcp/mcp.routes';
import { docsRouter } from './openapi/docs.routes';
import { projectGraphqlRouter } from './graphql/graphql.routes';
import type { ProjectDatabase } from './project/project.database';
import type { TurnServer } from './turn/turn.server';
import { participantsRoutes } from './participants/participants.routes';
import { pollsRoutes } from './polls/polls.routes';
import { breakoutsRoutes } from './breakouts/breakouts.routes';
import { recordingsRoutes, signedDownloadRouter } from './recordings/recordings.routes';
import { roomsRoutes } from './rooms/rooms.routes';
import { roomPageRouter } from './rooms/room-page.routes';
import { embedRoutes } from './embed/embed.routes';
import { embedPageRouter } from './embed/embed-page.routes';
import type { MediaCluster } from './media/nodes/media-cluster';
import type { WorkerPool } from './media/worker-pool';
import { createChatTarget, type Services } from './services';
import type { Logger } from './shared/logger';
import { summariesRoutes } from './summaries/summaries.routes';
import { searchRoutes } from './search/search.routes';
import { transcriptsRoutes } from './transcripts/transcripts.routes';
import { webhooksRoutes } from './webhooks/webhooks.routes';
import { registrationsRoutes } from './webinars/webinar-registrations.routes';
import { registrationPageRouter } from './webinars/registration-page.routes';

/** What the HTTP app needs from the composition root. */
export interface AppDeps {
  config: Config;
  services: Services;
  logger: Logger;
  /** The TURN server the service runs (SVC_TURN=embedded), reported by /healthz. */
  turn?: TurnServer;
  /** The project database; when given, its GraphQL endpoint is served at /project/graphql/v1. */
  project?: ProjectDatabase;
  /** The mediasoup workers, reported by /healthz; absent when the service runs without rooms. */
  media?: WorkerPool;
  /** The media nodes (SVC_REDIS_URL), reported by /healthz with their load. */
  nodes?: Pick<MediaCluster, 'health'>;
}

/** The public API's routes, in one table that the OpenAPI test compares with the document. */
export function publicRoutes({ services: s }: AppDeps): RouteDef[] {
  return [
    ...identityRoutes(),
    ...meetingsRoutes(s.meetings, s.idempotency),
    ...roomsRoutes(s.roomLinks, s.rooms),
    ...pollsRoutes(s.polls),
    ...breakoutsRoutes(s.breakouts),
    ...embedRoutes(s.embed),
    ...participantsRoutes(s.participants),
    ...recordingsRoutes(s.recordings),
    ...transcriptsRoutes(s.transcripts, s.transcription),
    ...summariesRoutes(s.summaries),
    ...searchRoutes(s.search),
    ...registrationsRoutes(s.registrations, s.idempotency),
    ...eventsRoutes(s.events),
    ...webhooksRoutes(s.webhooks),
    ...integrationsRoutes(s.integrations, s.identity),
  ];
}

/** What the dashboard's API uses, from the composition root's services. */
export function dashboardApiDeps({ config, services, logger, project }: AppDeps): DashboardApiDeps {
  return { ...services, baseUrl: config.baseUrl, chat: createChatTarget(services, config, logger), project };
}

/** The Express app without listen(), for the server and for in-process tests. */
export function createApp(deps: AppDeps): Express {
  const { config, services, logger } = deps;
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.set('trust proxy', config.trustProxy);
  app.set('query parser', 'simple');
  app.use(requestId());

  app.get('/healthz', (_req, res) => {
    services.db.prepare('SELECT 1').get();
    const workers = deps.media?.health() ?? [];
    const nodes = deps.nodes?.health();
    // Rooms need at least one running worker (here or on a media node); while the pool replaces a dead one the others carry on.
    const mediaUp = nodes ? nodes.some((n) => n.load.workers > 0 && !n.draining) : !deps.media || workers.some((w) => w.alive);
    // The project database starts on first use: `stopped` until then is healthy.
    const project = deps.project && { driver: deps.project.kind, state: deps.project.state };
    res.status(mediaUp ? 200 : 503).json({ status: mediaUp ? 'ok' : 'degraded', workers, nodes, project, turn: deps.turn?.health() });
  });
  app.use(roomPageRouter(services.roomAccess, config.rooms.pageRateLimit, services.clock));
  app.use(embedPageRouter(services.embed, config.rooms.pageRateLimit, services.clock));
  app.use(registrationPageRouter(services.registrations, config.rooms.pageRateLimit, services.clock, config.baseUrl));

  // One limiter for the REST API and the MCP endpoint: a key has one budget, whichever it calls.
  const limiter = new RateLimiter(config.rateLimit, services.clock);
  const api = Router();
  api.use(docsRouter());
  api.use(authenticate(services.identity));
  api.use(rateLimit(limiter, services.clock));
  api.use(signedDownloadRouter(services.recordings));
  api.use(requireKey);
  api.use(jsonBody);
  mountRoutes(api, publicRoutes(deps));
  app.use('/api/v1/public', api);
  app.use('/api/v1/mcp', mcpRouter({ config, services, logger, limiter }));
  app.use('/dashboard/api', dashboardApiRouter(dashboardApiDeps(deps), publicRoutes(deps)));
  app.use(dashboardPagesRouter(config.dashboard.dir));
  if (deps.project) app.use('/project/graphql/v1', projectGraphqlRouter(deps.project, logger));

  app.use(notFoundHandler);
  app.use(errorHandler(logger));
  return app;
}
