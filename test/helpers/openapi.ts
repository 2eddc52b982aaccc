import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { H3 } from 'h3';
import { createApp } from '../../src/app.js';
import { resolveConfig, type MockapiConfig } from '../../src/config.js';
import { createRuntime, type Runtime } from '../../src/runtime.js';

/**
 * A server in-process with every kind of route the document describes: config-declared
 * collections (one with a relation to users, one with a schema of its own), custom routes (one shadowing a generated path), and a
 * persona whose token holds no scope at all (every guarded operation refuses it, naming the scope).
 */
export const discoveryConfig = (dir: string): MockapiConfig => {
  const fixture = join(dir, 'invoices.json');
  writeFileSync(fixture, JSON.stringify([{ id: 1, number: 'A-1', customer: 'Ada', total: 12.5, paid: false, user_id: 1 }]));
  const orders = join(dir, 'orders.json');
  writeFileSync(orders, JSON.stringify([{ id: 1, item: { sku: 'X-1' }, status: 'open' }]));
  // A user's JSON Schema with $defs: the document lifts them into components.
  const orderSchema = {
    type: 'object',
    required: ['item'],
    properties: { item: { $ref: '#/$defs/item' }, status: { enum: ['open', 'closed'] } },
    $defs: { item: { type: 'object', required: ['sku'], properties: { sku: { type: 'string' } } } },
  };
  return {
    collections: {
      invoices: { fixture, search: ['number', 'customer'], relations: { user: { belongsTo: 'users', key: 'user_id' } } },
      orders: { fixture: orders, schema: orderSchema },
    },
    auth: { personas: { nobody: { role: 'viewer', scopes: [] } } },
    routes: {
      'GET /users/featured': () => ({ featured: [1, 2] }),
      'POST /posts/:post/like': () => undefined,
      'GET /stats/:kind': (_request: Request, ctx: { params: Record<string, string> }) => ({ kind: ctx.params.kind }),
    },
  } as MockapiConfig;
};

export interface DiscoveryServer {
  runtime: Runtime;
  app: H3;
  dir: string;
  /** Calls the app in-process (`path` from the server root). */
  call(method: string, path: string, init?: { headers?: Record<string, string>; body?: string }): Promise<Response>;
  close(): void;
}

export async function startDiscoveryServer(): Promise<DiscoveryServer> {
  const dir = mkdtempSync(join(tmpdir(), 'mockapi-openapi-'));
  const runtime = await createRuntime(resolveConfig(discoveryConfig(dir), { db: join(dir, 'test.db') }, dir));
  const app = createApp(runtime);
  return {
    runtime,
    app,
    dir,
    call: (method, path, init = {}) => Promise.resolve(app.fetch(new Request(`http://mock.test${path}`, { method, headers: init.headers, body: init.body }))),
    close: () => {
      runtime.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

type Document = { paths: Record<string, Record<string, any>> };

/** The documented operation a concrete request lands on: a literal path before a templated one. */
export function operationFor(document: Document, method: string, path: string): { template: string; operation: any } | undefined {
  const matches = Object.keys(document.paths).filter((template) => templateRegex(template).test(path));
  matches.sort((a, b) => (a.match(/\{/g)?.length ?? 0) - (b.match(/\{/g)?.length ?? 0));
  for (const template of matches) {
    const operation = document.paths[template]![method.toLowerCase()];
    if (operation) return { template, operation };
  }
  return undefined;
}

function templateRegex(template: string): RegExp {
  const source = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+');
  return new RegExp(`^${source}$`);
}

/** A value for each kind of path parameter, so a template or a router pattern names something real. */
export const sampleParams: Record<string, string> = { id: '1', name: 'notes', delivery_id: 'del_missing', post: '1', kind: 'daily' };

/** A documented path with its parameters filled in (`/api/v1/custom/{name}` → `/api/v1/custom/notes`; snapshots get their own name). */
export function fillTemplate(template: string): string {
  return template.replace(/\{([^}]+)\}/g, (_, name: string) => (template.includes('/snapshots/') && name === 'name' ? 'snap' : (sampleParams[name] ?? 'x')));
}

export type AnswerChecker = ReturnType<typeof answerChecker>;

/** Finds the documented schema of an answer and validates bodies against it (ajv, JSON Schema 2020-12). */
export function answerChecker(document: any) {
  const base = 'https://mockapi.test/openapi.json';
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  (addFormats as unknown as (ajv: Ajv2020) => void)(ajv);
  // The whole document as one schema resource, so `#/components/schemas/...` resolve inside it.
  ajv.addSchema({ $id: base, components: document.components });
  const validators = new Map<string, ValidateFunction>();
  return {
    /** The schema of an answer: its operation, its status (or `default`), its media type. */
    schemaOf(method: string, path: string, status: number, type: string): object | undefined {
      const found = operationFor(document, method, path.split('?')[0]!);
      if (!found) throw new Error(`${method} ${path} is not documented`);
      let response = found.operation.responses[String(status)] ?? found.operation.responses.default;
      if (!response) throw new Error(`${method} ${found.template} documents no ${status} answer`);
      if (response.$ref) response = document.components.responses[response.$ref.split('/').pop()];
      const content = response.content ?? {};
      const media = Object.keys(content).find((key) => key.split(';')[0] === type);
      if (!media) throw new Error(`${method} ${found.template} ${status} documents no ${type} (only ${Object.keys(content).join(', ')})`);
      return content[media].schema;
    },
    /** The problems of a body against a schema of the document ([] when it validates). */
    validate(schema: object, body: unknown): string[] {
      const key = JSON.stringify(schema);
      let check = validators.get(key);
      if (!check) validators.set(key, (check = ajv.compile(JSON.parse(key.replaceAll('"#/components/', `"${base}#/components/`)))));
      return check(body) ? [] : (check.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
    },
  };
}
