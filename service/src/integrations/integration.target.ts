import type { ClaimedDelivery } from '../outbox/deliveries.repo';
import type { DeliveryTarget, DestinationHealth, SendResult } from '../outbox/destination';
import { isoAt } from '../shared/clock';
import type { IntegrationsRepo } from './integrations.repo';

/** What every integration kind shares as a delivery destination: its health lives on its integrations row. */
export abstract class IntegrationTarget implements DeliveryTarget {
  constructor(protected readonly integrations: IntegrationsRepo) {}

  abstract attempt(delivery: ClaimedDelivery, now: number): Promise<SendResult>;

  health(destinationId: string): DestinationHealth | undefined {
    return this.integrations.health(destinationId);
  }

  saveHealth(
    destinationId: string,
    health: DestinationHealth,
    outcome: { previous: DestinationHealth; delivered: boolean; now: number },
  ): void {
    this.integrations.updateHealth(
      destinationId,
      { ...health, enabled: health.enabled ? 1 : 0 },
      {
        lastDeliveredAt: outcome.delivered ? isoAt(outcome.now) : null,
        updatedAt: outcome.previous.enabled !== health.enabled ? isoAt(outcome.now) : null,
      },
    );
  }
}
