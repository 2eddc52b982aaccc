import type { H3 } from 'h3';
import type { servedDocuments } from '../openapi/documents.js';
import type { Runtime } from '../runtime.js';
import { route, sendJson } from './_resource.js';

/** `GET /api/v1/openapi.json` (OpenAPI 3.1) and `GET /api/v1/openapi-3.0.json` (3.0.3), contract section 13. */
export function addOpenApiRoutes(app: H3, runtime: Runtime): void {
  // The generator (and its schemas) load with the first request for a document, not at start.
  let documents: Promise<ReturnType<typeof servedDocuments>> | undefined;
  const load = () => (documents ??= import('../openapi/documents.js').then((module) => module.servedDocuments(runtime)));
  for (const [path, format] of [
    ['/api/v1/openapi.json', '3.1'],
    ['/api/v1/openapi-3.0.json', '3.0'],
  ] as const) {
    route(app, path, { GET: { open: true, handler: async (event) => sendJson(event, (await load())()[format]) } });
  }
}
