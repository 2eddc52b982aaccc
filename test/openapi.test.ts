import SwaggerParser from '@apidevtools/swagger-parser';
import { BaseResolver, createConfig, lintDocument, makeDocumentFromString } from '@redocly/openapi-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeCatalogue } from '../src/openapi/document.js';
import { fillTemplate, operationFor, sampleParams, startDiscoveryServer, type DiscoveryServer } from './helpers/openapi.js';

let server: DiscoveryServer;
const documents: Record<'3.1' | '3.0', any> = {} as never;
let nobodyToken: string;

beforeAll(async () => {
  server = await startDiscoveryServer();
  for (const [format, path] of [
    ['3.1', '/api/v1/openapi.json'],
    ['3.0', '/api/v1/openapi-3.0.json'],
  ] as const) {
    const answer = await server.call('GET', path);
    expect(answer.status).toBe(200);
    documents[format] = await answer.json();
  }
  const login = await server.call('POST', '/api/v1/auth/login', {
    headers: { 'content-type': 'application/json', 'x-sandbox': 'scope-check' },
    body: JSON.stringify({ username: 'nobody', password: 'password' }),
  });
  nobodyToken = ((await login.json()) as { access_token: string }).access_token;
});
afterAll(() => server.close());

const walk = function* (value: unknown, path = ''): Generator<[string, string, unknown]> {
  if (typeof value !== 'object' || value === null) return;
  for (const [key, inner] of Object.entries(value)) {
    yield [path, key, inner];
    yield* walk(inner, `${path}/${key}`);
  }
};

describe('the OpenAPI documents', () => {
  it.each(['3.1', '3.0'] as const)('%s is valid (swagger-parser) and has no errors in Redocly’s recommended ruleset', async (format) => {
    const document = documents[format];
    expect(document.openapi).toBe(format === '3.1' ? '3.1.0' : '3.0.3');
    expect(document.info.version).toBe('1.0.0');
    await SwaggerParser.validate(structuredClone(document));
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintDocument({
      document: makeDocumentFromString(JSON.stringify(document), `openapi-${format}.json`),
      config: (config as { styleguide?: unknown }).styleguide ?? config,
      externalRefResolver: new BaseResolver(),
    } as Parameters<typeof lintDocument>[0]);
    const errors = problems.filter((p) => p.severity === 'error').map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`);
    expect(errors).toEqual([]);
  });

  it('3.0.3 is converted, not relabelled: nullable instead of type arrays, no const, no root webhooks', () => {
    const v30 = documents['3.0'];
    expect(v30.webhooks).toBeUndefined();
    expect(Object.keys(v30['x-webhooks'])).toEqual(Object.keys(documents['3.1'].webhooks));
    const bad = [...walk(v30)].filter(([, key, value]) => (key === 'type' && Array.isArray(value)) || key === 'const' || key === 'examples' || key === '$defs');
    expect(bad.map(([path, key]) => `${path}/${key}`)).toEqual([]);
    expect(v30.components.schemas.Pagination.properties.nextCursor).toEqual(expect.objectContaining({ type: 'string', nullable: true }));
    expect(documents['3.1'].components.schemas.Pagination.properties.nextCursor.type).toEqual(['string', 'null']);
    // Bearer scopes live in x-scopes in 3.0 (its security requirements list none for non-OAuth schemes).
    const list = v30.paths['/api/v1/posts'].get;
    expect(list.security).toContainEqual({ bearerAuth: [] });
    expect(list['x-scopes']).toEqual(['posts:read']);
  });

  it('describes every collection from its definition: fields, bounds, filters, relations, the cursor form', () => {
    const { components, paths } = documents['3.1'];
    const post = components.schemas.Post;
    expect(post.required).toEqual(['id', 'user_id', 'title', 'body']);
    expect(post.properties.title).toEqual({ type: 'string', minLength: 1, maxLength: 500 });
    expect(post.properties.comments.items).toEqual({ $ref: '#/components/schemas/Comment' });
    expect(components.schemas.UserInput.properties.username.pattern).toBe('^[A-Za-z0-9_.-]+$');
    // The config-declared collection, with fields read from its fixture and its relation both ways.
    expect(Object.keys(components.schemas.Invoice.properties)).toEqual(expect.arrayContaining(['number', 'customer', 'total', 'paid', 'user_id', 'user']));
    expect(paths['/api/v1/invoices/{id}/user'].get).toBeDefined();
    expect(paths['/api/v1/users/{id}/invoices'].get).toBeDefined();
    // A declared schema's $defs, lifted into components.
    expect(components.schemas.OrderInput.properties.item).toEqual({ $ref: '#/components/schemas/OrderItem' });
    expect(components.schemas.OrderItem.required).toEqual(['sku']);
    const filters = components.parameters.PostFilters;
    expect(filters).toMatchObject({ in: 'query', style: 'form', explode: true });
    expect(Object.keys(filters.schema.properties)).toEqual(expect.arrayContaining(['user_id', 'title_like', 'id_gte', 'created_at_lt']));
    expect(components.parameters.TodoFilters.schema.properties.completed_like).toBeUndefined();
    expect(components.parameters.Limit.schema).toEqual({ type: 'integer', minimum: 1, maximum: 200, default: 10 });
    expect(components.parameters.PostEmbed.schema.items.enum).toEqual(['comments']);
    expect(components.schemas.Pagination.required).toContain('nextCursor');
    expect(paths['/api/v1/posts'].get.parameters).toContainEqual({ $ref: '#/components/parameters/Cursor' });
    expect(paths['/api/v1/posts'].get.parameters).toContainEqual({ $ref: '#/components/parameters/XSimulateLatency' });
    expect(paths['/api/v1/posts/{id}'].patch.requestBody.content['application/merge-patch+json']).toBeDefined();
    expect(paths['/api/v1/posts'].post.responses['422']).toEqual({ $ref: '#/components/responses/Problem422' });
    expect(components.responses.Problem422.content['application/problem+json'].schema).toEqual({ $ref: '#/components/schemas/Problem' });
    expect(components.securitySchemes.svcIdentity).toMatchObject({ type: 'apiKey', in: 'cookie', name: 'svc_identity' });
    expect(components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
  });

  it('has the webhooks section with every event and its body, and custom routes without a body schema', () => {
    const { webhooks, paths } = documents['3.1'];
    for (const name of ['post.created', 'user.deleted', 'invoice.updated', 'custom.<name>.created', 'auth.login', 'sandbox.reset', 'test.ping']) {
      expect(webhooks[name]?.post.requestBody.content['application/json'].schema, name).toBeDefined();
    }
    expect(webhooks['invoice.created'].post.requestBody.content['application/json'].schema.allOf[1].properties.data).toEqual({ $ref: '#/components/schemas/Invoice' });
    const like = paths['/api/v1/posts/{post}/like'].post;
    expect(like.requestBody.content['application/json']).toEqual({});
    expect(like.responses['200'].content['application/json']).toEqual({});
    // The custom route matched before the generated one replaces nothing it does not shadow.
    expect(paths['/api/v1/users/featured'].get.tags).toEqual(['custom routes']);
    expect(paths['/api/v1/users/{id}'].get.tags).toEqual(['users']);
  });
});

describe('the document against the router', () => {
  /** The methods a concrete path answers: a plain OPTIONS is 405 with `Allow` on every route. */
  const allowed = async (path: string): Promise<string[]> => {
    const answer = await server.call('OPTIONS', path);
    expect(answer.status, `OPTIONS ${path}`).toBe(405);
    return (answer.headers.get('allow') ?? '').split(/,\s*/).filter((m) => m && m !== 'HEAD');
  };

  /** Concrete paths for a router pattern: every collection and relation, sample values for the rest. */
  const expand = (pattern: string): string[] => {
    const { collections } = server.runtime.engine;
    if (pattern.includes(':collection')) {
      return collections.flatMap((c) => {
        const base = pattern.replace(':collection', c.name).replace(':id', '1');
        return pattern.includes(':relation') ? c.relations.map((r) => base.replace(':relation', r.name)) : [base];
      });
    }
    return [pattern.replace(/:(\w+)/g, (_, name: string) => (pattern.includes('/snapshots/') ? 'snap' : (sampleParams[name] ?? 'x')))];
  };

  it('the catalogue names exactly the patterns the router holds', () => {
    const router = new Set((server.app as unknown as { '~routes': { route: string }[] })['~routes'].map((r) => r.route));
    const catalogue = new Set(routeCatalogue({ collections: server.runtime.engine.collections, maxPageSize: 200, routes: server.runtime.config.routes }).map((doc) => doc.route));
    catalogue.delete('custom-route');
    expect([...router].filter((route) => !catalogue.has(route)), 'routes the router holds that the catalogue lacks').toEqual([]);
    expect([...catalogue].filter((route) => !router.has(route)), 'catalogue entries no route serves').toEqual([]);
  });

  it('fails for any method and path the server answers that the document lacks', async () => {
    const routes = (server.app as unknown as { '~routes': { route: string }[] })['~routes'].map((r) => r.route);
    const customPaths = Object.keys(server.runtime.config.routes).map((key) => `/api/v1${key.split(' ')[1]!.replace(/:(\w+)/g, (_, name: string) => sampleParams[name] ?? 'x')}`);
    const missing: string[] = [];
    let checked = 0;
    for (const path of [...routes.flatMap(expand), ...customPaths]) {
      for (const method of await allowed(path)) {
        checked++;
        if (!operationFor(documents['3.1'], method, path)) missing.push(`${method} ${path}`);
      }
    }
    expect(missing).toEqual([]);
    expect(checked).toBeGreaterThan(90);
  });

  it('documents nothing the server does not answer', async () => {
    const phantom: string[] = [];
    for (const [template, item] of Object.entries(documents['3.1'].paths as Record<string, Record<string, unknown>>)) {
      const methods = await allowed(fillTemplate(template));
      for (const method of Object.keys(item)) if (!methods.includes(method.toUpperCase())) phantom.push(`${method.toUpperCase()} ${template}`);
    }
    expect(phantom).toEqual([]);
  });

  it('each operation’s documented scope is the one the guard asks for', async () => {
    const wrong: string[] = [];
    for (const [template, item] of Object.entries(documents['3.1'].paths as Record<string, Record<string, any>>)) {
      if (!template.startsWith('/api/v1/')) continue;
      for (const [method, operation] of Object.entries(item)) {
        // Logging out ends the token's family, access tokens too (contract section 7): the walk's token must outlive it.
        if (template === '/api/v1/auth/logout') continue;
        const path = fillTemplate(template);
        const answer = await server.call(method.toUpperCase(), path, {
          headers: { authorization: `Bearer ${nobodyToken}`, 'content-type': 'application/json' },
          body: method === 'get' || method === 'delete' ? undefined : '{}',
        });
        const body = answer.headers.get('content-type')?.includes('json') ? ((await answer.json()) as { detail?: string }) : {};
        const scopes: (string | string[])[] | undefined = operation['x-scopes'];
        if (!scopes) {
          if (answer.status === 403) wrong.push(`${method} ${template}: open in the document, 403 from the server`);
          continue;
        }
        const first = scopes[0]!;
        const needed = (typeof first === 'string' ? first : first.join(' or ')).replaceAll('{name}', sampleParams.name!);
        if (answer.status !== 403 || !body.detail?.includes(`scope ${needed} `)) wrong.push(`${method} ${template}: documented ${needed}, answered ${answer.status} ${body.detail}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});
