import { sendIdempotent } from '../http/idempotent';
import { parsePageRequest, queryParam } from '../http/pagination';
import type { RouteDef } from '../http/routes';
import { AppError } from '../shared/errors';
import { objectValidator } from '../shared/validation';
import type { IdempotencyService } from '../idempotency/idempotency.service';
import { createRegistrationSchema, type CreateRegistrationInput } from './webinar-registrations.schemas';
import type { RegistrationsService } from './webinar-registrations.service';

/** POST /webinars/{slug}/registrations (201 for a new registration, 200 with the existing one for a known email) and GET to list or find by email. */
export function registrationsRoutes(registrations: RegistrationsService, idempotency: IdempotencyService): RouteDef[] {
  const parse = objectValidator<CreateRegistrationInput>(createRegistrationSchema);
  return [
    {
      method: 'get',
      path: '/webinars/:slug/registrations',
      scope: 'webinars:write',
      handler(req, res) {
        const page = parsePageRequest(req);
        const email = queryParam(req, 'email');
        if (email !== undefined && (email.length > 254 || !email.includes('@'))) {
          throw AppError.invalid([{ param: 'email', message: 'must be an email address' }]);
        }
        res.json(registrations.search(req.principal!, String(req.params.slug), email, page));
      },
    },
    {
      method: 'post',
      path: '/webinars/:slug/registrations',
      scope: 'webinars:write',
      handler(req, res) {
        const input = parse(req.body);
        sendIdempotent(req, res, idempotency, () => {
          const { registration, created } = registrations.register(req.principal!, String(req.params.slug), input);
          return { status: created ? 201 : 200, body: registration };
        });
      },
    },
  ];
}
