import type { H3 } from 'h3';
import { sandboxOf } from '../auth/identity.js';
import { createSnapshotStore } from '../engine/snapshots.js';
import type { Runtime } from '../runtime.js';
import { route } from './_resource.js';
import { addSandboxInfoRoutes } from './sandbox-info.js';
import { addSnapshotRoutes } from './snapshots.js';

/** `/api/v1/sandbox/*`: the requester's own sandbox (info, activity, reset, snapshots). */
export function addSandboxRoutes(app: H3, runtime: Runtime): void {
  const snapshots = createSnapshotStore(runtime.db, runtime.engine);
  addSandboxInfoRoutes(app, runtime, snapshots);
  route(app, '/api/v1/sandbox/reset', {
    // Snapshots survive a reset: reset between tests, restore one later.
    POST: {
      scope: 'sandbox:reset',
      handler: (event) => {
        const sandbox = sandboxOf(event);
        const purged = runtime.engine.reset(sandbox);
        return { message: 'sandbox reset to the baseline', sandbox, purged };
      },
    },
  });
  addSnapshotRoutes(app, runtime, snapshots);
}
