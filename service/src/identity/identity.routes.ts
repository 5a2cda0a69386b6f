import type { RequestHandler } from 'express';
import type { RouteDef } from '../http/routes';
import type { IdentityService, Principal } from './identity.service';

declare module 'express-serve-static-core' {
  interface Request {
    /** The caller, once a valid API key (or, on the dashboard's API, a session) has been presented. */
    principal?: Principal;
  }
}

/** Resolves `Authorization: Bearer <key>` to a principal when the key is valid; never fails by itself, so the rate limiter can see the outcome. */
export function authenticate(identity: IdentityService): RequestHandler {
  return function authenticateMiddleware(req, _res, next) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(req.get('Authorization') ?? '');
    if (match) req.principal = identity.authenticate(match[1]!);
    next();
  };
}

/** GET /me: who the key belongs to, where it can act, and what it may do. */
export function identityRoutes(): RouteDef[] {
  return [
    {
      method: 'get',
      path: '/me',
      scope: null,
      handler(req, res) {
        const { user, organizations, key } = req.principal!;
        res.json({
          user: { id: user.id, name: user.name, email: user.email },
          organizations: organizations.map((o) => ({ id: o.id, name: o.name })),
          key: {
            id: key.id,
            name: key.name,
            scopes: key.scopes,
            organization_id: key.organization_id,
            expires_at: key.expires_at,
            created_at: key.created_at,
          },
        });
      },
    },
  ];
}
