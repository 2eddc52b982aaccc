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
 * The documents a runtime serves, built on the first request for one (about 60 ms: not on every
 * start) and again after a `--watch` reload changed what they describe: `config.routes` is swapped whole and `limits` refilled in place; a change of
 * collections builds a new runtime, and so new documents.
 */
export function servedDocuments(runtime: Runtime): () => Record<OpenApiFormat, string> {
  const { config, engine } = runtime;
  let builtFrom: [unknown, number] | undefined;
  let texts: Record<OpenApiFormat, string> | undefined;
  const build = () => {
    builtFrom = [config.routes, config.limits.maxPageSize];
    texts = openApiTexts({ collections: engine.collections, maxPageSize: config.limits.maxPageSize, routes: config.routes }, runtime.version);
    return texts;
  };
  return () => (texts && builtFrom?.[0] === config.routes && builtFrom[1] === config.limits.maxPageSize ? texts : build());
}
