import type { RouteDef } from '../http/routes';

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
