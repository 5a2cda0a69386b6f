import { Router, type Request, type RequestHandler } from 'express';
import { canManage, ROLES, type Role } from '../identity/roles';
import { AppError } from '../shared/errors';
import { objectValidator } from '../shared/validation';
import type { DashboardService, OpenedSession } from './dashboard.service';
import type { TeamService } from './team.service';

/** The dashboard API's own paths that only owners and admins reach (the public API's routes are held back by scope instead). */
export const MANAGING_PATHS = ['/keys', '/integrations', '/project', '/users', '/invites'];

const parseInvite = objectValidator<{ email: string; role: Role; organization_id?: string }>({
  type: 'object',
  additionalProperties: false,
  required: ['email', 'role'],
  properties: {
    email: { type: 'string', format: 'email', maxLength: 320 },
    role: { type: 'string', enum: [...ROLES] },
    organization_id: { type: 'string', maxLength: 100 },
  },
});
const parseRoleChange = objectValidator<{ role: Role }>({
  type: 'object',
  additionalProperties: false,
  required: ['role'],
  properties: { role: { type: 'string', enum: [...ROLES] } },
});
const parseToken = objectValidator<{ token: string }>({
  type: 'object',
  additionalProperties: false,
  required: ['token'],
  properties: { token: { type: 'string', minLength: 1, maxLength: 2000 } },
});
const parseAccept = objectValidator<{ token: string; name: string; password: string }>({
  type: 'object',
  additionalProperties: false,
  required: ['token', 'name', 'password'],
  properties: {
    token: { type: 'string', minLength: 1, maxLength: 2000 },
    name: { type: 'string', minLength: 1, maxLength: 100, format: 'single-line' },
    password: { type: 'string', minLength: 1, maxLength: 200 },
  },
});

/** Refuses a signed-in user whose role does not manage the service (403 forbidden, naming the role). */
export const requireManagingRole: RequestHandler = function requireManagingRoleMiddleware(req, _res, next) {
  const role = req.dashboardSession!.user.role;
  if (canManage(role)) return next();
  next(new AppError('forbidden', `Your role (${role}) does not allow this: only owners and admins manage keys, integrations and the team`));
};

/**
 * The invitation links' two calls, before sign-in: what an invitation is for, and accepting it (which opens a session
 * through `signIn`, so the invitee lands signed in).
 */
export function inviteAcceptRouter(
  team: TeamService,
  dashboard: DashboardService,
  clientOf: (req: Request) => string,
  signIn: (res: Parameters<RequestHandler>[1], opened: OpenedSession) => void,
): Router {
  const router = Router();
  router.post('/invites/preview', (req, res) => {
    res.json(team.preview(parseToken(req.body).token, clientOf(req)));
  });
  router.post('/invites/accept', (req, res) => {
    const { token, name, password } = parseAccept(req.body);
    const user = team.accept(token, { name, password }, clientOf(req));
    signIn(res, dashboard.open(user, 'link'));
    res.status(204).end();
  });
  return router;
}

/** The Team page's calls (owners and admins): teammates, invitations, roles, removal. */
export function teamRouter(team: TeamService): Router {
  const router = Router();
  router.get('/users', (_req, res) => {
    res.json({ data: team.listMembers() });
  });
  router.patch('/users/:id', (req, res) => {
    const { role } = parseRoleChange(req.body);
    res.json(team.changeRole(req.dashboardSession!.user, String(req.params.id), role));
  });
  router.delete('/users/:id', (req, res) => {
    team.remove(req.dashboardSession!.user, String(req.params.id));
    res.status(204).end();
  });
  router.get('/invites', (_req, res) => {
    res.json({ data: team.listInvites() });
  });
  router.post('/invites', (req, res) => {
    const input = parseInvite(req.body);
    res
      .status(201)
      .json(team.invite(req.dashboardSession!.user, { email: input.email, role: input.role, organizationId: input.organization_id }));
  });
  router.delete('/invites/:id', (req, res) => {
    team.revokeInvite(req.dashboardSession!.user, String(req.params.id));
    res.status(204).end();
  });
  return router;
}
