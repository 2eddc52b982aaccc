import type { H3, H3Event } from 'h3';
import { sandboxOf } from '../auth/identity.js';
import type { SnapshotStore } from '../engine/snapshots.js';
import type { Runtime } from '../runtime.js';
import { route } from './_resource.js';

/** `GET /api/v1/sandbox` and `GET /api/v1/sandbox/activity`: the requester's own sandbox. */
export function addSandboxInfoRoutes(app: H3, runtime: Runtime, snapshots: SnapshotStore): void {
  const { engine } = runtime;
  const iso = (ms: number) => new Date(ms).toISOString();

  route(app, '/api/v1/sandbox', {
    GET: {
      scope: 'sandbox:read',
      handler: (event: H3Event) => {
        const sandbox = sandboxOf(event);
        const arrivedAt = Date.now() - (event.context.arrivedAt === undefined ? 0 : performance.now() - event.context.arrivedAt);
        const row = engine.sandboxes.row(sandbox);
        // A visitor who only read has no row: what this server saw of it is all there is.
        const seen = engine.activity.open(sandbox, arrivedAt);
        const createdAt = Math.min(row?.createdAt ?? seen.firstSeen, seen.firstSeen);
        const lastActiveAt = Math.max(row?.lastActiveAt ?? 0, seen.lastSeen);
        const created = engine.sandboxes.createdCounts(row?.sid ?? 0);
        const quotas: Record<string, object> = Object.fromEntries(
          engine.collections.map((c) => [c.name, { created: created.get(c.cid) ?? 0, limit: runtime.config.limits.createdPerCollection }]),
        );
        // limit 0: no bound (contract section 12).
        quotas.bytes = { used: row?.bytes ?? 0, limit: runtime.config.limits.sandboxBytes };
        // Custom collections: how many hold records, and each one's records against its cap.
        const custom = engine.custom.list(sandbox);
        quotas.custom = {
          collections: { used: custom.length, limit: runtime.config.limits.customCollections },
          records: Object.fromEntries(custom.map((c) => [c.name, { created: c.count, limit: runtime.config.limits.customRecords }])),
        };
        return {
          id: sandbox,
          createdAt: iso(createdAt),
          lastActiveAt: iso(lastActiveAt),
          requests: seen.requests,
          quotas,
          snapshots: snapshots.count(row?.sid ?? 0),
        };
      },
    },
  });
  route(app, '/api/v1/sandbox/activity', {
    GET: {
      scope: 'sandbox:read',
      handler: (event: H3Event) => ({
        data: engine.activity.recent(sandboxOf(event)).map((entry) => ({ ...entry, at: iso(entry.at) })),
      }),
    },
  });
}
