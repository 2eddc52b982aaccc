import type { H3 } from 'h3';
import { servedDocuments } from '../openapi/documents.js';
import type { Runtime } from '../runtime.js';
import { resource, sendJson } from './_resource.js';

/** `GET /api/v1/openapi.json` (OpenAPI 3.1) and `GET /api/v1/openapi-3.0.json` (3.0.3), contract section 13. */
export function addOpenApiRoutes(app: H3, runtime: Runtime): void {
  const documents = servedDocuments(runtime);
  for (const [path, format] of [
    ['/api/v1/openapi.json', '3.1'],
    ['/api/v1/openapi-3.0.json', '3.0'],
  ] as const) {
    app.all(path, resource({ GET: { open: true, handler: (event) => sendJson(event, documents()[format]) } }));
  }
}
