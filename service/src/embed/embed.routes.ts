import type { RouteDef } from '../http/routes';
import { objectValidator } from '../shared/validation';
import type { EmbedService } from './embed.service';
import { createEmbedTokenSchema, embedOriginsSchema, type CreateEmbedTokenInput, type EmbedOriginsInput } from './embed.schemas';

const validateOrigins = objectValidator<EmbedOriginsInput>(embedOriginsSchema);
const validateToken = objectValidator<CreateEmbedTokenInput>(createEmbedTokenSchema);

/** A meeting's allowed parent origins (GET, PUT replaces) and POST /embed/tokens. */
export function embedRoutes(embed: EmbedService): RouteDef[] {
  return [
    {
      method: 'get',
      path: '/meetings/:id/embed-origins',
      scope: 'meetings:read',
      handler(req, res) {
        res.json(embed.origins(req.principal!, String(req.params.id)));
      },
    },
    {
      method: 'put',
      path: '/meetings/:id/embed-origins',
      scope: 'meetings:write',
      handler(req, res) {
        res.json(embed.replaceOrigins(req.principal!, String(req.params.id), validateOrigins(req.body)));
      },
    },
    {
      method: 'post',
      path: '/embed/tokens',
      scope: 'meetings:write',
      handler(req, res) {
        res
          .status(201)
          .set('Cache-Control', 'no-store')
          .json(embed.issueToken(req.principal!, validateToken(req.body)));
      },
    },
  ];
}
