import { readFileSync } from 'node:fs';
import type { H3 } from 'h3';
import { route } from './_resource.js';

const page = readFileSync(new URL('../../templates/reset-page.html', import.meta.url), 'utf8');

/**
 * `GET /reset-password`, outside `/api/v1`: where the reset mail links unless `auth.resetUrl`
 * names a front-end's own page. A form that posts `{token, password}` in the browser's sandbox;
 * everything inline, so it works offline.
 */
export function addResetPageRoute(app: H3): void {
  route(app, '/reset-password', {
    GET: { open: true, handler: () => new Response(page, { headers: { 'content-type': 'text/html; charset=utf-8' } }) },
  });
}
