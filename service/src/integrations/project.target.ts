import type { IntegrationsRepo } from './integrations.repo';
import type { ClaimedDelivery } from '../outbox/deliveries.repo';
import { failedBeforeSending, type SendResult } from '../outbox/destination';
import type { ProjectDatabase } from '../project/project.database';
import { IntegrationTarget } from './integration.target';

/**
 * The table events go to. Created with row-level security on and no policy: only service_role (and the
 * owner) read it until the customer writes a policy, since Supabase's default grants reach anon too.
 */
const CREATE_EVENTS_TABLE = [
  `create table public.svc_events (id text primary key, type text not null, created_at timestamptz not null, data jsonb not null)`,
  `alter table public.svc_events enable row level security`,
  `comment on table public.svc_events is 'Events of the meetings service (svc), one row per event id.'`,
];

/** Inserts keyed by the event id: a redelivery after a crash (the row committed, the attempt not recorded) inserts nothing. */
const INSERT_EVENT = `insert into public.svc_events (id, type, created_at, data) values ($1, $2, $3::timestamptz, $4::jsonb) on conflict (id) do nothing`;

/** Integrations of kind `project` as a delivery destination: each event becomes a row of `public.svc_events`. */
export class ProjectTarget extends IntegrationTarget {
  constructor(
    integrations: IntegrationsRepo,
    private readonly project: ProjectDatabase | undefined,
  ) {
    super(integrations);
  }

  async attempt(delivery: ClaimedDelivery): Promise<SendResult> {
    if (!this.integrations.findAny(delivery.destination_id)) return failedBeforeSending('the integration was deleted', true);
    if (!this.project) return failedBeforeSending('the project database is not running');
    const event = JSON.parse(delivery.payload) as { id: string; type: string; created_at: string; data: unknown };
    const started = performance.now();
    const project = this.project;
    try {
      await project.asOwner(async (client) => {
        const { rows } = await client.query(`select to_regclass('public.svc_events') is not null as present`);
        if (!rows[0]!.present) for (const statement of CREATE_EVENTS_TABLE) await client.query(statement);
        await client.query(INSERT_EVENT, [event.id, event.type, event.created_at, JSON.stringify(event.data)]);
      });
      return {
        statusCode: 200,
        error: null,
        permanentFailure: null,
        responseBody: null,
        retryAfterMs: null,
        durationMs: Math.round(performance.now() - started),
      };
    } catch (err) {
      const error = `project database: ${err instanceof Error ? err.message : String(err)}`.slice(0, 1000);
      return {
        statusCode: null,
        error,
        permanentFailure: null,
        responseBody: null,
        retryAfterMs: null,
        durationMs: Math.round(performance.now() - started),
      };
    }
  }
}
