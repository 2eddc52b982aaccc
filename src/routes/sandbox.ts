import type { H3 } from 'h3';
import { sandboxOf } from '../auth/identity.js';
import type { Runtime } from '../runtime.js';
import { resource } from './_resource.js';

/** `/api/v1/sandbox/*`: the requester's own sandbox. */
export function addSandboxRoutes(app: H3, runtime: Runtime): void {
  app.all(
    '/api/v1/sandbox/reset',
    resource({
      POST: (event) => {
        const sandbox = sandboxOf(event);
        const purged = runtime.engine.reset(sandbox);
        return { message: 'sandbox reset to the baseline', sandbox, purged: { ...purged, custom: 0 } };
      },
    }),
  );
}
