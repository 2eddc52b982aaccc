import type { H3 } from 'h3';
import type { Runtime } from '../runtime.js';
import { route } from './_resource.js';

/** `GET /health`, outside `/api/v1`: for wait-for-it scripts and CI service checks. */
export function addHealthRoute(app: H3, runtime: Runtime): void {
  route(app, '/health', {
    GET: {
      open: true,
      handler: () => ({ status: 'ok', version: runtime.version, uptime: Math.round((Date.now() - runtime.startedAt) / 10) / 100 }),
    },
  });
}
