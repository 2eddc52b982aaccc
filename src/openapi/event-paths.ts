import type { CollectionDefinition } from '../engine/definition.js';
import { signatureFormats } from '../engine/webhook-store.js';
import { patterns } from './components.js';
import { pagingParameters, schemaNames } from './collection-schemas.js';
import { purgedSchema } from './sandbox-paths.js';
import { json, ref, type RouteDoc, type Schema } from './types.js';

const text = { type: 'string' };
const dateTime = { type: 'string', format: 'date-time' };
const pattern = { type: 'string', maxLength: 128, description: 'An event name (`post.created`), its plural form (`posts.created`), a category wildcard (`post.*`, `posts.*`) or `*`.' };

/**
 * Every event the change log records (contract sections 8 and 15), with its `data`: each
 * collection's `created`/`updated`/`deleted` (the record after the change; for deletes, as it
 * was), custom collections', and the auth, sandbox and ping events.
 */
export function eventCatalogue(collections: readonly CollectionDefinition[], customRecord: string): { name: string; summary: string; data: Schema }[] {
  const actions = ['created', 'updated', 'deleted'] as const;
  const of = (prefix: string, record: Schema, what: string) =>
    actions.map((action) => ({ name: `${prefix}.${action}`, summary: `A ${what} was ${action}`, data: record }));
  return [
    ...collections.flatMap((c) => of(c.singular, ref(schemaNames(c).record), c.singular)),
    ...of('custom.<name>', ref(customRecord), 'record of a custom collection'),
    { name: 'auth.login', summary: 'A user logged in', data: obj({ user: ref('Account'), role: text }) },
    { name: 'auth.registered', summary: 'A user registered', data: obj({ user: ref('User'), role: text }) },
    { name: 'sandbox.reset', summary: 'The sandbox was reset', data: obj({ sandbox: text, purged: purgedSchema(collections) }) },
    { name: 'sandbox.restored', summary: 'A snapshot was restored', data: obj({ sandbox: text, snapshot: text }) },
    { name: 'sandbox.imported', summary: 'An export document replaced the sandbox', data: obj({ sandbox: text }) },
    { name: 'test.ping', summary: 'A ping (`POST /api/v1/webhooks/{id}/ping`)', data: obj({ webhook: text, sandbox: text }) },
  ];
}

function obj(properties: Record<string, Schema>): Schema {
  return { type: 'object', required: Object.keys(properties), properties };
}

export function eventSchemas(): Record<string, Schema> {
  return {
    Event: {
      type: 'object',
      description: 'An event of the sandbox\'s log, as delivered to webhooks, listed by `GET /api/v1/events` and streamed.',
      required: ['id', 'event', 'timestamp', 'data'],
      properties: {
        id: { type: 'string', description: 'The event id (`evt_...`, sorting in log order).' },
        event: { type: 'string', examples: ['post.created'] },
        timestamp: { ...dateTime, description: 'ISO 8601 UTC with milliseconds.' },
        data: { description: "The event's data: the record after the change (as it was, for deletes), or the event's own object." },
      },
    },
    Delivery: {
      type: 'object',
      required: ['id', 'webhook_id', 'event', 'status', 'attempts', 'created_at'],
      properties: {
        id: { type: 'string', pattern: '^del_' },
        webhook_id: text,
        event: text,
        status: { type: 'string', enum: ['pending', 'succeeded', 'failed'] },
        attempts: {
          type: 'array',
          items: {
            type: 'object',
            required: ['at', 'status_code', 'duration_ms', 'error'],
            properties: { at: dateTime, status_code: { type: ['integer', 'null'] }, duration_ms: { type: 'number' }, error: { type: ['string', 'null'] } },
          },
        },
        created_at: dateTime,
      },
    },
  };
}

/**
 * The 3.1 document's `webhooks`: each event as the request a subscriber receives (contract
 * section 8), signed as its subscription says.
 */
export function webhookSection(events: { name: string; summary: string; data: Schema }[]): Record<string, Schema> {
  const headers = [
    { name: 'X-Service-Event', in: 'header', required: true, schema: text },
    { name: 'X-Service-Delivery', in: 'header', required: true, description: 'The delivery id (`del_<uuid>`); a retry keeps it.', schema: text },
    {
      name: 'X-Service-Signature',
      in: 'header',
      required: true,
      description: '`timestamped`: `t=<unix>,v1=<hex HMAC-SHA256 of "t.body">` (Stripe\'s form); `sha256`: `sha256=<hex HMAC of the body>` (GitHub\'s). `standard` subscriptions also get the Standard Webhooks headers `webhook-id`, `webhook-timestamp`, `webhook-signature`.',
      schema: text,
    },
  ];
  return Object.fromEntries(
    events.map(({ name, summary, data }) => [
      name,
      {
        post: {
          operationId: `on${name.split(/[^A-Za-z0-9]+/).map((w) => w[0]!.toUpperCase() + w.slice(1)).join('')}`,
          tags: ['webhooks'],
          summary,
          description: 'Delivered as `POST` with `User-Agent: Service-Webhook-Dispatcher/1.0`. A 2xx acknowledges; anything else, a timeout or a connection error is tried again (`webhooks.attempts` in all, exponential backoff with jitter).',
          parameters: headers,
          requestBody: {
            required: true,
            content: { 'application/json': { schema: { allOf: [ref('Event'), { type: 'object', properties: { event: { const: name }, data } }] } } },
          },
          responses: { '200': { description: 'Any 2xx acknowledges the delivery.' } },
          // Not the API's credentials: the subscriber checks the signature headers.
          security: [],
        },
      },
    ]),
  );
}

/** `/api/v1/webhooks/*` and `/api/v1/events` with its stream (contract sections 8 and 15). */
export function eventRouteDocs(): RouteDoc[] {
  const subscription = ref('ExportWebhook');
  const idParam = { id: { type: 'string', description: 'The subscription id (`wh_<uuid>`).' } };
  const fields = {
    url: { type: 'string', format: 'uri', maxLength: 2048, description: 'An http(s) URL (within `webhooks.allowHosts` when it is set).' },
    events: { type: 'array', minItems: 1, maxItems: 50, items: pattern },
    secret: { type: 'string', minLength: 1, maxLength: 256, description: 'Generated when left out; `whsec_<base64 key>` for `standard`.' },
    signature: { type: 'string', enum: [...signatureFormats], default: 'timestamped' },
  };
  const tag = 'webhooks';
  const list = (items: Schema) => json({ type: 'object', required: ['data', 'pagination'], properties: { data: { type: 'array', items }, pagination: ref('Pagination') } });
  const eventsParams: Schema[] = [
    { name: 'events', in: 'query', description: 'Only these events: a comma list of patterns (`post.*,user.created`).', schema: text },
    { name: 'event', in: 'query', description: 'The same as `events`.', schema: text },
    { name: 'since', in: 'query', description: 'Only the events after this one (exclusive).', schema: { type: 'string', pattern: patterns.eventId } },
  ];
  return [
    {
      method: 'GET',
      path: '/api/v1/webhooks',
      route: '/api/v1/webhooks',
      operationId: 'listWebhooks',
      tag,
      summary: "List the sandbox's subscriptions",
      scopes: ['webhooks:read'],
      ok: { description: 'Every subscription.', content: list(subscription) },
    },
    {
      method: 'POST',
      path: '/api/v1/webhooks',
      route: '/api/v1/webhooks',
      operationId: 'createWebhook',
      tag,
      summary: 'Subscribe to events',
      description: 'Subscriptions belong to the sandbox and survive its reset. Deliveries never delay the API answer.',
      scopes: ['webhooks:write'],
      body: { required: true, content: json({ type: 'object', required: ['url', 'events'], additionalProperties: false, properties: fields }) },
      ok: { description: 'The subscription, its secret included.', content: json(subscription) },
      errors: [400, 413, 415, 422],
    },
    {
      method: 'GET',
      path: '/api/v1/webhooks/{id}',
      route: '/api/v1/webhooks/:id',
      operationId: 'getWebhook',
      tag,
      summary: 'Get a subscription',
      scopes: ['webhooks:read'],
      pathParams: idParam,
      ok: { description: 'The subscription.', content: json(subscription) },
      errors: [404],
    },
    {
      method: 'PATCH',
      path: '/api/v1/webhooks/{id}',
      route: '/api/v1/webhooks/:id',
      operationId: 'patchWebhook',
      tag,
      summary: 'Change a subscription',
      scopes: ['webhooks:write'],
      pathParams: idParam,
      body: { required: true, content: json({ type: 'object', additionalProperties: false, properties: fields }) },
      ok: { description: 'The subscription after the change.', content: json(subscription) },
      errors: [400, 404, 413, 415, 422],
    },
    {
      method: 'DELETE',
      path: '/api/v1/webhooks/{id}',
      route: '/api/v1/webhooks/:id',
      operationId: 'deleteWebhook',
      tag,
      summary: 'Delete a subscription',
      scopes: ['webhooks:delete'],
      pathParams: idParam,
      ok: { description: 'What was deleted.', content: json({ type: 'object', required: ['message', 'id'], properties: { message: text, id: text } }) },
      errors: [404],
    },
    {
      method: 'POST',
      path: '/api/v1/webhooks/{id}/ping',
      route: '/api/v1/webhooks/:id/ping',
      operationId: 'pingWebhook',
      tag,
      summary: 'Send a test.ping',
      scopes: ['webhooks:write'],
      pathParams: idParam,
      ok: { description: 'The queued delivery.', content: json(ref('Delivery')) },
      errors: [404],
    },
    {
      method: 'GET',
      path: '/api/v1/webhooks/{id}/deliveries',
      route: '/api/v1/webhooks/:id/deliveries',
      operationId: 'listWebhookDeliveries',
      tag,
      summary: "A subscription's deliveries",
      description: 'Newest first, each with every attempt.',
      scopes: ['webhooks:read'],
      pathParams: idParam,
      parameters: pagingParameters({ cursor: false }),
      ok: { description: 'The list envelope of deliveries.', content: list(ref('Delivery')) },
      errors: [400, 404],
    },
    {
      method: 'POST',
      path: '/api/v1/webhooks/deliveries/{delivery_id}/retry',
      route: '/api/v1/webhooks/deliveries/:delivery_id/retry',
      operationId: 'retryDelivery',
      tag,
      summary: 'Retry a delivery',
      description: 'One more attempt of the same delivery (same `X-Service-Delivery`).',
      scopes: ['webhooks:write'],
      pathParams: { delivery_id: { type: 'string', description: 'The delivery id (`del_<uuid>`).' } },
      ok: { description: 'The delivery.', content: json(ref('Delivery')) },
      errors: [404],
    },
    {
      method: 'GET',
      path: '/api/v1/events',
      route: '/api/v1/events',
      operationId: 'listEvents',
      tag: 'events',
      summary: "The sandbox's event log",
      description: 'Newest first; the log keeps the last `limits.eventsPerSandbox` events.',
      scopes: ['events:read'],
      parameters: [...pagingParameters({ cursor: true }), ...eventsParams],
      ok: { description: 'The list envelope of events.', content: list(ref('Event')) },
      errors: [400],
    },
    {
      method: 'GET',
      path: '/api/v1/events/stream',
      route: '/api/v1/events/stream',
      operationId: 'streamEvents',
      tag: 'events',
      summary: 'The event stream (server-sent events)',
      description:
        'Opens with `retry: 2000` and a comment, then one message per event: `id:` the event id, `event:` its name, `data:` the event as one line of JSON. `Last-Event-ID` (or `since`; the header wins) first replays what the client missed. A comment every 15 s keeps proxies open.',
      scopes: ['events:read'],
      parameters: [
        ...eventsParams.filter((p) => p.name !== 'event'),
        { name: 'Last-Event-ID', in: 'header', description: 'Replay the events after this one (an id no longer in the log replays the whole log).', schema: text },
      ],
      ok: { description: 'The stream.', content: { 'text/event-stream': { type: 'string' } } },
      errors: [400],
    },
  ];
}
