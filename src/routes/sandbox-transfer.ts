import type { H3 } from 'h3';
import { sandboxOf } from '../auth/identity.js';
import { holds } from '../auth/authorize.js';
import { buildExportDocument, withhold, type Withheld } from '../engine/export-document.js';
import { contextOf } from '../http/context.js';
import { importDocument, maxDocumentDepth } from '../engine/import-document.js';
import { DomainError } from '../engine/errors.js';
import type { Runtime } from '../runtime.js';
import { readJsonObject } from './_body.js';
import { route } from './_resource.js';

/** An exported sandbox may hold hundreds of changed records: its import may exceed `limits.bodyBytes`. */
const importBodyBytes = 16 * 1024 * 1024;

/**
 * `GET /api/v1/sandbox/export` and `POST /api/v1/sandbox/import`: the export document holding the
 * caller's sandbox only; an import replaces the caller's sandbox (the document's id is ignored),
 * so no client ever reads or writes another sandbox this way.
 */
export function addSandboxTransferRoutes(app: H3, runtime: Runtime): void {
  const { db, engine } = runtime;
  route(app, '/api/v1/sandbox/export', {
    GET: {
      scope: 'sandbox:read',
      handler: (event) => {
        const ctx = contextOf(event);
        const sandbox = ctx.sandbox;
        // As any read: a sandbox idle past its TTL is dropped first, so it exports as fresh.
        engine.sandboxes.sidOf(sandbox);
        const document = buildExportDocument(db, engine.collections, [sandbox]);
        const left: Withheld[] = [];
        if (!holds(ctx, 'webhooks:write')) left.push('webhooks.secret');
        if (!holds(ctx, 'inbox:read')) left.push('mailbox');
        return left.length ? { ...document, sandboxes: document.sandboxes.map((one) => withhold(one, left)) } : document;
      },
    },
  });
  route(app, '/api/v1/sandbox/import', {
    // Replacing the whole sandbox is a reset's power.
    POST: {
      scope: 'sandbox:reset',
      handler: async (event) => {
        const sandbox = sandboxOf(event);
        // Limits are read per request, so a config reload applies at once.
        const { limits } = runtime.config;
        const document = await readJsonObject(event, Math.max(limits.bodyBytes, importBodyBytes), maxDocumentDepth);
        const result = importDocument({ db, engine, limits }, document, { into: sandbox });
        if (!result.ok) {
          const [first] = result.problems;
          const detail = `the export document is invalid (nothing was imported): ${first.path} ${first.message}`;
          throw new DomainError('VALIDATION_FAILED', detail, result.problems);
        }
        const [imported] = result.sandboxes;
        return { message: 'sandbox replaced by the imported document', sandbox, imported: { ...imported.records, snapshots: imported.snapshots } };
      },
    },
  });
}
