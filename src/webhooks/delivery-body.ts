import { randomUUID } from 'node:crypto';
import { envelopeOf, type LoggedEvent } from '../engine/change-log.js';

/** A new delivery id: the `X-Service-Delivery` header and the body's `id`. */
export const newDeliveryId = () => `del_${randomUUID()}`;

/**
 * The body of one delivery (contract section 8): the event's envelope `{id, event, timestamp,
 * data}` whose `id` is the delivery's, as the seed says (receivers deduplicate on it, and a retry
 * sends the same); the event's own id rides along as `event_id`.
 */
export function deliveryBody(deliveryId: string, event: Pick<LoggedEvent, 'id' | 'event' | 'timestamp' | 'data'>): string {
  const envelope = envelopeOf(event);
  return `{"id":${JSON.stringify(deliveryId)},"event_id":${envelope.slice('{"id":'.length)}`;
}
