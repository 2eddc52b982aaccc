import { paginationOf } from '../engine/pagination.js';
import { getRouterParam, type H3, type H3Event } from 'h3';
import { randomUUID } from 'node:crypto';
import { holds } from '../auth/authorize.js';
import { sandboxOf } from '../auth/identity.js';
import { contextOf } from '../http/context.js';
import { withoutSecret } from '../engine/export-document.js';
import type { Subscription } from '../engine/webhook-store.js';
import { notFound } from '../engine/errors.js';
import { readInteger } from '../engine/list-query.js';
import type { Runtime } from '../runtime.js';
import { deliveryBody, newDeliveryId } from '../webhooks/delivery-body.js';
import { checkSubscription } from '../webhooks/subscription-input.js';
import { webhookSettings } from '../webhooks/webhook-config.js';
import { readJsonObject } from './_body.js';
import { route } from './_resource.js';

/** `/api/v1/webhooks/*` (contract section 8): the requester's own subscriptions and their deliveries. */
export function addWebhookRoutes(app: H3, runtime: Runtime): void {
  const { engine } = runtime;
  const store = engine.webhooks;
  const idOf = (event: H3Event, name = 'id') => getRouterParam(event, name, { decode: true }) ?? '';
  const missing = (id: string) => notFound(`this sandbox has no webhook ${JSON.stringify(id)}`);
  const settings = () => webhookSettings(runtime.config);
  /** Signing secrets go to `webhooks:write` holders only: a reader could forge deliveries with one. */
  const shown = (event: H3Event, hook: Subscription) => (holds(contextOf(event), 'webhooks:write') ? hook : withoutSecret(hook));
  const subscription = (event: H3Event) => {
    const id = idOf(event);
    const found = store.get(sandboxOf(event), id);
    if (!found) throw missing(id);
    return found;
  };

  route(app, '/api/v1/webhooks', {
    GET: {
      scope: 'webhooks:read',
      handler: (event) => {
        const all = store.list(sandboxOf(event));
        return { data: all.map((hook) => shown(event, hook)), pagination: wholeList(all.length) };
      },
    },
    POST: {
      scope: 'webhooks:write',
      handler: async (event) => {
        const sandbox = sandboxOf(event);
        const body = await readJsonObject(event, runtime.config.limits.bodyBytes);
        return store.create(sandbox, checkSubscription(body, settings().allowHosts));
      },
    },
  });
  route(app, '/api/v1/webhooks/:id', {
    GET: { scope: 'webhooks:read', handler: (event) => shown(event, subscription(event)) },
    PATCH: {
      scope: 'webhooks:write',
      handler: async (event) => {
        const sandbox = sandboxOf(event);
        const current = subscription(event);
        const body = await readJsonObject(event, runtime.config.limits.bodyBytes);
        const updated = store.update(sandbox, current.id, checkSubscription(body, settings().allowHosts, current));
        if (!updated) throw missing(current.id);
        return updated;
      },
    },
    DELETE: {
      scope: 'webhooks:delete',
      handler: (event) => {
        const id = idOf(event);
        if (!store.remove(sandboxOf(event), id)) throw missing(id);
        return { message: `webhook ${id} deleted`, id };
      },
    },
  });
  route(app, '/api/v1/webhooks/:id/ping', {
    POST: {
      scope: 'webhooks:write',
      handler: (event) => {
        const sandbox = sandboxOf(event);
        const hook = subscription(event);
        const [id] = engine.sandboxes.write(() => {
          const sid = engine.sandboxes.ensureRow(sandbox);
          const id = newDeliveryId();
          const body = deliveryBody(id, {
            id: `evt_ping_${randomUUID()}`,
            event: 'test.ping',
            timestamp: new Date().toISOString(),
            data: JSON.stringify({ webhook: hook.id, sandbox }),
          });
          const { url, signature, secret } = hook;
          return store.enqueue([{ id, sid, webhookId: hook.id, event: 'test.ping', body, url, signature, secret, maxAttempts: settings().attempts }]);
        });
        runtime.webhooks.kick();
        return store.delivery(sandbox, id);
      },
    },
  });
  route(app, '/api/v1/webhooks/:id/deliveries', {
    GET: {
      scope: 'webhooks:read',
      handler: (event) => {
        const hook = subscription(event);
        const params = event.url.searchParams;
        const limit = readInteger(params, ['limit', '_limit', '_per_page'], 10, 1, runtime.config.limits.maxPageSize);
        const page = readInteger(params, ['page', '_page'], 1, 1, 1_000_000);
        const { rows, total } = store.deliveries(sandboxOf(event), hook.id, limit, (page - 1) * limit);
        return { data: rows, pagination: paginationOf((page - 1) * limit, limit, total) };
      },
    },
  });
  route(app, '/api/v1/webhooks/deliveries/:delivery_id/retry', {
    POST: {
      scope: 'webhooks:write',
      handler: (event) => {
        const id = idOf(event, 'delivery_id');
        const delivery = store.retry(sandboxOf(event), id);
        if (!delivery) throw notFound(`this sandbox has no delivery ${JSON.stringify(id)}`);
        runtime.webhooks.kick();
        return delivery;
      },
    },
  });
}

const wholeList = (total: number) => paginationOf(0, Math.max(total, 1), total);
