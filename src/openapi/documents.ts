import { perConfig } from '../per-config.js';
import type { Runtime } from '../runtime.js';
import { buildOpenApi, type DocumentSource } from './document.js';
import { toOpenApi30 } from './to-3.0.js';

export type OpenApiFormat = '3.1' | '3.0';

/** Both documents, built from one source; `indent` for a file people read and diff. */
export function openApiTexts(source: DocumentSource, version: string, indent?: number): Record<OpenApiFormat, string> {
  const document = buildOpenApi(source, version);
  return { '3.1': JSON.stringify(document, null, indent), '3.0': JSON.stringify(toOpenApi30(document), null, indent) };
}

/**
 * The documents a runtime serves, built on the first request for them (about 60 ms: not on every
 * start) and once per config after that: a `--watch` reload brings a new config, a change of
 * collections a new runtime, and so new documents.
 */
export function servedDocuments(runtime: Runtime): () => Record<OpenApiFormat, string> {
  const { engine } = runtime;
  const documentsOf = perConfig((config: Runtime['config']) =>
    openApiTexts({ collections: engine.collections, maxPageSize: config.limits.maxPageSize, routes: config.routes }, runtime.version),
  );
  return () => documentsOf(runtime.config);
}
