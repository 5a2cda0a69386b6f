import { Router, type ErrorRequestHandler, type Request, type RequestHandler, type Response } from 'express';
import { allowedHostnames } from '../http/allowed-hosts';
import { jsonBody } from '../http/body';
import type { ChatTarget } from '../integrations/chat.target';
import type { IntegrationsRepo } from '../integrations/integrations.repo';
import type { IdentityService } from '../identity/identity.service';
import type { KeysService } from '../keys/keys.service';
import type { RegistrationsService } from '../webinars/webinar-registrations.service';
import type { ProjectDatabase } from '../project/project.database';
import { parsePageRequest } from '../http/pagination';
import { mountRoutes, type RouteDef } from '../http/routes';
import { keyHint } from '../keys/keys.service';
import type { ApiKeyRow } from '../keys/keys.repo';
import { isScope, SCOPES, type Scope } from '../keys/scopes';
import { assertCanSubscribe, EVENT_TYPES, type EventType } from '../events/event-types';
import type { SlackOAuthService } from '../integrations/slack-oauth.service';
import { isoAt } from '../shared/clock';
import { AppError } from '../shared/errors';
import { canManage } from '../identity/roles';
import { objectValidator } from '../shared/validation';
import type { ActiveSession, DashboardService } from './dashboard.service';
import type { TeamService } from './team.service';
import { projectTablesRouter } from './project-tables.routes';
import { inviteAcceptRouter, MANAGING_PATHS, requireManagingRole, teamRouter } from './team.routes';
import { dashboardMeetingsRouter, type DashboardMeetingsDeps } from './dashboard-meetings.routes';

declare module 'express-serve-static-core' {
  interface Request {
    /** The dashboard session, on the dashboard's API once its cookie has been checked. */
    dashboardSession?: ActiveSession;
  }
}

/** The session cookie's name. */
export const SESSION_COOKIE = 'svc_session';

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

const parseLinkSignIn = objectValidator<{ token: string }>({
  type: 'object',
  additionalProperties: false,
  required: ['token'],
  properties: { token: { type: 'string', minLength: 1, maxLength: 2000 } },
});
const parsePasswordSignIn = objectValidator<{ email: string; password: string }>({
  type: 'object',
  additionalProperties: false,
  required: ['email', 'password'],
  properties: { email: { type: 'string', minLength: 1, maxLength: 320 }, password: { type: 'string', minLength: 1, maxLength: 200 } },
});
const parseUserToken = objectValidator<{ sub: string }>({
  type: 'object',
  additionalProperties: false,
  required: ['sub'],
  properties: { sub: { type: 'string', format: 'uuid' } },
});
const parseSql = objectValidator<{ sql: string }>({
  type: 'object',
  additionalProperties: false,
  required: ['sql'],
  properties: { sql: { type: 'string', minLength: 1, maxLength: 100_000 } },
});
const parseSlackInstall = objectValidator<{ events: EventType[]; organization_id?: string }>({
  type: 'object',
  additionalProperties: false,
  required: ['events'],
  properties: {
    events: { type: 'array', minItems: 1, uniqueItems: true, items: { type: 'string', enum: [...EVENT_TYPES] } },
    organization_id: { type: 'string' },
  },
});
const parseNewKey = objectValidator<{ name: string; scopes: string[]; organization_id?: string | null; expires_at?: string | null }>({
  type: 'object',
  additionalProperties: false,
  required: ['name', 'scopes'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 100, format: 'single-line' },
    scopes: { type: 'array', items: { type: 'string' }, maxItems: 20 },
    organization_id: { type: ['string', 'null'] },
    expires_at: { type: ['string', 'null'], format: 'date-time' },
  },
});

/** The services the dashboard's API uses. */
export interface DashboardApiDeps extends DashboardMeetingsDeps {
  /** The service's public base URL: the origin state-changing requests must come from. */
  baseUrl: string;
  dashboard: DashboardService;
  team: TeamService;
  identity: IdentityService;
  keys: KeysService;
  registrations: RegistrationsService;
  integrationsRepo: IntegrationsRepo;
  /** Sends a chat integration's test message (the outbox's Slack/Teams target). */
  chat: Pick<ChatTarget, 'sendTest'>;
  /** The operator's Slack app; absent: Add to Slack answers 404. */
  slackOAuth: SlackOAuthService | undefined;
  /** The project database; absent: its endpoints answer 404. */
  project: ProjectDatabase | undefined;
}

/**
 * The dashboard's API at /dashboard/api: sign-in, the session, API keys, and under /v1 the public API's own route
 * table (the same handlers and services), authenticated by the session cookie instead of an API key. Every
 * state-changing request must come from the service's own origin and, once signed in, carry the session's CSRF token.
 */
export function dashboardApiRouter(deps: DashboardApiDeps, publicRoutes: RouteDef[]): Router {
  const { baseUrl, chat } = deps;
  const dashboard = deps.dashboard;
  const router = Router();
  router.use(noStore, sameOrigin(baseUrl), jsonBody);

  router.post('/sign-in/link', (req, res) => {
    const { token } = parseLinkSignIn(req.body);
    const opened = dashboard.signInWithLink(token, clientOf(req));
    setSessionCookie(res, opened.token, opened.expiresAt - deps.clock.now(), baseUrl);
    res.status(204).end();
  });
  router.post('/sign-in/password', (req, res) => {
    const { email, password } = parsePasswordSignIn(req.body);
    const opened = dashboard.signInWithPassword(email, password, clientOf(req));
    setSessionCookie(res, opened.token, opened.expiresAt - deps.clock.now(), baseUrl);
    res.status(204).end();
  });

  router.get('/sign-in/about', (_req, res) => {
    res.json({ organization: deps.identity.listOrganizations()[0]?.name ?? null, base_url: baseUrl });
  });
  router.use(
    inviteAcceptRouter(deps.team, dashboard, clientOf, (res, opened) =>
      setSessionCookie(res, opened.token, opened.expiresAt - deps.clock.now(), baseUrl),
    ),
  );

  router.use(requireSession(dashboard));
  router.use(MANAGING_PATHS, requireManagingRole);
  router.use(teamRouter(deps.team));
  router.get('/session', (req, res) => {
    const active = req.dashboardSession!;
    res.json({
      user: { id: active.user.id, name: active.user.name, email: active.user.email, role: active.user.role },
      can_manage: canManage(active.user.role),
      organizations: active.principal.organizations.map((o) => ({ id: o.id, name: o.name })),
      csrf_token: active.csrfToken,
      expires_at: isoAt(active.session.expires_at),
      base_url: baseUrl,
      scopes: SCOPES,
      event_types: EVENT_TYPES,
      slack_install_available: deps.slackOAuth !== undefined,
    });
  });
  router.post('/sign-out', (req, res) => {
    dashboard.signOut(req.dashboardSession!);
    res.clearCookie(SESSION_COOKIE, { path: '/' });
    res.status(204).end();
  });

  router.get('/keys', (req, res) => {
    const userId = req.dashboardSession!.user.id;
    const rows = deps.keys.list().filter((k) => k.user_id === userId);
    res.json({ data: rows.reverse().map(keyView) });
  });
  router.post('/keys', (req, res) => {
    const input = parseNewKey(req.body);
    const principal = req.principal!;
    const unknown = input.scopes.filter((s) => !isScope(s));
    if (unknown.length > 0) throw AppError.invalid([{ param: 'scopes', message: `has unknown scopes: ${unknown.join(', ')}` }]);
    const organizationId = input.organization_id ? deps.identity.targetOrganization(principal, input.organization_id).id : null;
    if (input.expires_at && Date.parse(input.expires_at) <= deps.clock.now()) {
      throw AppError.invalid([{ param: 'expires_at', message: 'must be in the future' }]);
    }
    const { key, row } = deps.keys.create({
      userId: principal.user.id,
      name: input.name,
      scopes: input.scopes as Scope[],
      organizationId,
      expiresAt: input.expires_at ?? null,
    });
    res.status(201).json({ ...keyView(row), key });
  });
  router.post('/keys/:id/revoke', (req, res) => {
    const id = String(req.params.id);
    const row = deps.keys.list().find((k) => k.id === id && k.user_id === req.dashboardSession!.user.id);
    if (!row) throw AppError.notFound(`API key ${id}`);
    res.json(keyView(deps.keys.revoke(id)));
  });

  router.post('/meetings/:id/end', (req, res) => {
    res.json(deps.meetings.end(deps.meetings.find(req.principal!, String(req.params.id))));
  });
  router.get('/meetings/:id/registrations', (req, res) => {
    res.json(deps.registrations.list(req.principal!, String(req.params.id), parsePageRequest(req)));
  });
  router.use(dashboardMeetingsRouter(deps, baseUrl));

  router.post('/integrations/:id/test', async (req, res) => {
    const integration = deps.integrationsRepo.findAny(String(req.params.id));
    if (!integration || !req.principal!.organizationIds.includes(integration.organization_id) || integration.kind === 'project') {
      throw AppError.notFound(`Chat integration ${String(req.params.id)}`);
    }
    const result = await chat.sendTest(integration, new Date(deps.clock.now()));
    res.json({ ok: result.error === null, status_code: result.statusCode, error: result.error, duration_ms: result.durationMs });
  });

  router.post('/integrations/slack/install', (req, res) => {
    const input = parseSlackInstall(req.body);
    const principal = req.principal!;
    assertCanSubscribe(principal.key.scopes, input.events);
    const org = deps.identity.targetOrganization(principal, input.organization_id);
    const installer = { sessionId: req.dashboardSession!.session.id, organizationIds: principal.organizationIds };
    res.json({ authorize_url: slackOAuthOf(deps).start(installer, org.id, input.events) });
  });
  // Slack sends the browser here (a top-level GET, so the lax session cookie comes along); the outcome goes back to the page.
  router.get('/integrations/slack/callback', async (req, res) => {
    const installer = { sessionId: req.dashboardSession!.session.id, organizationIds: req.principal!.organizationIds };
    const query = (name: string) => (typeof req.query[name] === 'string' ? req.query[name] : undefined);
    try {
      const integration = await slackOAuthOf(deps).complete(installer, {
        code: query('code'),
        state: query('state'),
        error: query('error'),
      });
      res.redirect(303, `/settings/integrations?slack_installed=${encodeURIComponent(integration.id)}`);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      res.redirect(303, `/settings/integrations?slack_error=${encodeURIComponent(err.detail)}`);
    }
  });

  router.get('/project', (req, res) => {
    const keys = projectOf(deps).keys();
    res.json({
      url: keys.url,
      graphql_url: `${keys.url}/graphql/v1`,
      anon_key: keys.anon,
      service_role_key: keys.serviceRole,
      can_run_sql: true,
    });
  });
  router.post('/project/user-token', (req, res) => {
    const { sub } = parseUserToken(req.body);
    const iat = Math.floor(deps.clock.now() / 1000);
    res.json({ token: projectOf(deps).signToken({ sub, role: 'authenticated', aud: 'authenticated', iat, exp: iat + 3600 }) });
  });
  router.use(projectTablesRouter(() => projectOf(deps)));
  router.post('/project/sql', async (req, res) => {
    const { sql } = parseSql(req.body);
    try {
      res.json({ results: await projectOf(deps).sql(sql) });
    } catch (err) {
      throw AppError.invalid([{ param: 'sql', message: err instanceof Error ? err.message : String(err) }]);
    }
  });

  const v1 = Router();
  mountRoutes(v1, publicRoutes);
  v1.use(explainScopeByRole);
  router.use('/v1', v1);
  return router;
}

// A session's scopes come from its user's role, so a missing one is the role's doing, not an API key's.
const explainScopeByRole: ErrorRequestHandler = function explainScopeByRoleHandler(err, req, _res, next) {
  if (!(err instanceof AppError) || err.code !== 'insufficient_scope' || !req.dashboardSession) return next(err);
  const role = req.dashboardSession.user.role;
  next(
    AppError.missingScope(
      err.extra.required_scope ?? '',
      `Your role (${role}) does not allow this: only owners and admins manage webhooks and integrations`,
    ),
  );
};

function slackOAuthOf(deps: DashboardApiDeps): SlackOAuthService {
  if (!deps.slackOAuth) throw AppError.notFound('Add to Slack (SVC_SLACK_CLIENT_ID and SVC_SLACK_CLIENT_SECRET are not set)');
  return deps.slackOAuth;
}

function projectOf(deps: DashboardApiDeps): ProjectDatabase {
  if (!deps.project) throw AppError.notFound('The project database');
  return deps.project;
}

function keyView(row: ApiKeyRow) {
  return {
    id: row.id,
    name: row.name,
    prefix: keyHint(row),
    scopes: row.scopes,
    organization_id: row.organization_id,
    expires_at: row.expires_at,
    revoked_at: row.revoked_at,
    last_used_at: row.last_used_at,
    created_at: row.created_at,
  };
}

const noStore: RequestHandler = function noStoreMiddleware(_req, res, next) {
  res.set('Cache-Control', 'no-store');
  next();
};

/**
 * Refuses state-changing requests whose Origin is not the service's: the base URL's origin, or the origin the request
 * came to when its host is one the service answers to (the MCP endpoint's list: the base URL's host and loopback).
 */
function sameOrigin(baseUrl: string): RequestHandler {
  const base = new URL(baseUrl).origin;
  const hosts = allowedHostnames(baseUrl);
  return function sameOriginMiddleware(req, _res, next) {
    if (!STATE_CHANGING.has(req.method)) return next();
    const origin = req.get('Origin');
    const own = `${req.protocol}://${req.get('Host')}`;
    if (origin !== base && !(origin === own && hosts.includes(hostnameOf(own)))) {
      return next(new AppError('forbidden', 'Cross-origin request refused: the dashboard only accepts requests from its own pages'));
    }
    next();
  };
}

/** Resolves the session cookie (401 without a valid one), checks the CSRF token of state-changing requests, and sets the principal. */
function requireSession(dashboard: DashboardService): RequestHandler {
  return function requireSessionMiddleware(req, res, next) {
    const token = cookieOf(req, SESSION_COOKIE);
    const active = token === undefined ? undefined : dashboard.authenticate(token);
    if (!active) {
      if (token !== undefined) res.clearCookie(SESSION_COOKIE, { path: '/' });
      return next(new AppError('unauthorized', 'Not signed in, or the session has ended; sign in again'));
    }
    if (STATE_CHANGING.has(req.method) && !dashboard.checkCsrf(active, req.get('X-CSRF-Token'))) {
      return next(new AppError('forbidden', 'Missing or wrong X-CSRF-Token; reload the page'));
    }
    // The dashboard never replays creates; an Idempotency-Key would be stored against an API key that does not exist.
    delete req.headers['idempotency-key'];
    req.dashboardSession = active;
    req.principal = active.principal;
    next();
  };
}

function setSessionCookie(res: Response, token: string, maxAgeMs: number, baseUrl: string): void {
  res.cookie(SESSION_COOKIE, token, {
    httpOnly: true,
    sameSite: 'lax',
    secure: baseUrl.startsWith('https:'),
    path: '/',
    maxAge: maxAgeMs,
  });
}

function hostnameOf(origin: string): string {
  try {
    return new URL(origin).hostname;
  } catch {
    return '';
  }
}

function cookieOf(req: Request, name: string): string | undefined {
  for (const part of (req.get('Cookie') ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}

function clientOf(req: Request): string {
  return req.ip ?? 'unknown';
}
