import { describe, expect, it } from 'vitest';
import { defineConfig } from '../../src/index.js';
import { configProblems, describeSchema, didYouMean, editDistance, formatPath, quote } from '../../src/config-schema.js';
import { defaults, resolveConfig } from '../../src/config.js';

describe('did you mean', () => {
  it('counts a swap of neighbours as one edit', () => {
    expect(editDistance('prot', 'port')).toBe(1);
    expect(editDistance('createdPerColection', 'createdPerCollection')).toBe(1);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('kitten', 'sitting')).toBe(3);
  });

  it('suggests the closest sibling when it is close enough to be a typo, ignoring case', () => {
    expect(didYouMean('prot', ['port', 'host', 'db'])).toBe('port');
    expect(didYouMean('Port', ['port', 'host'])).toBe('port');
    expect(didYouMean('fixture', ['fixtures', 'collections'])).toBe('fixtures');
    expect(didYouMean('maxPagesize', ['maxPageSize', 'maxSandboxes'])).toBe('maxPageSize');
    expect(didYouMean('banana', ['port', 'host', 'db'])).toBeUndefined();
    expect(didYouMean('x', [])).toBeUndefined();
  });
});

describe('the config schema walk', () => {
  it('accepts every key of contract section 2 with valid values, and the defaults', () => {
    expect(configProblems({})).toEqual([]);
    expect(configProblems(defaults)).toEqual([]);
    expect(
      configProblems({
        port: 0,
        host: '0.0.0.0',
        db: ':memory:',
        fixtures: './fixtures',
        collections: {
          invoices: { fixture: './invoices.json', schema: { type: 'object' }, search: ['number'], relations: { user: { belongsTo: 'users', key: 'user_id' } } },
        },
        auth: {
          secret: 's',
          password: 'p',
          accessTtl: 900,
          refreshTtl: '7d',
          required: true,
          clockTolerance: '5s',
          personas: { support: { email: 'support@mockapi.local', name: 'Support', password: 'x', role: 'viewer', scopes: 'posts:write' } },
        },
        limits: { sandboxBytes: 0, eventsPerSandbox: 5, telemetryPerSandbox: 5, fileBytes: 1, sandboxFileBytes: 1, filesPerSandbox: 1, sandboxTtl: 0 },
        webhooks: { timeoutMs: 100, attempts: 1, backoffMs: 0, allowHosts: ['localhost'], subscriptions: [{ url: 'http://localhost:1/h', events: ['*'], signature: 'standard' }] },
        simulate: { latency: '100-400', rateLimit: '5/10s' },
        cors: { origins: ['http://localhost:3000', 'https://Example.com/'] },
        routes: { 'GET /users/featured': () => [], 'DELETE /things/:id': async () => undefined },
        // c12's NODE_ENV overrides, already merged into the rest by the time the schema sees them.
        $test: { port: 1 },
      }),
    ).toEqual([]);
  });

  it('names unknown keys by their path, at every depth, with a hint from their siblings only', () => {
    expect(configProblems({ prot: 4730 })).toEqual(['unknown key "prot" in the config (did you mean "port"?)']);
    expect(configProblems({ limits: { createdPerColection: 5 } })).toEqual([
      'unknown key "limits.createdPerColection" (did you mean "limits.createdPerCollection"?)',
    ]);
    expect(configProblems({ webhooks: { subscriptions: [{ url: 'http://x', events: ['*'], secrit: 'y' }] } })).toEqual([
      'unknown key "webhooks.subscriptions[0].secrit" (did you mean "webhooks.subscriptions[0].secret"?)',
    ]);
    expect(configProblems({ cors: { origin: '*' } })).toEqual(['unknown key "cors.origin" (did you mean "cors.origins"?)']);
    expect(configProblems({ whatever: 1 })).toEqual(['unknown key "whatever" in the config']);
  });

  it('words a mistyped value with its path, what it must be, and the value quoted', () => {
    expect(configProblems({ port: '4730' })).toEqual(['port must be an integer from 0 to 65535, got "4730"']);
    expect(configProblems({ port: 70000 })).toEqual(['port must be an integer from 0 to 65535, got 70000']);
    expect(configProblems({ limits: { sandboxTtl: 'a week' } })).toEqual(['limits.sandboxTtl must be seconds or a duration such as "30m", got "a week"']);
    expect(configProblems({ limits: { activity: -1 } })).toEqual(['limits.activity must be a whole number, got -1']);
    expect(configProblems({ auth: { personas: { bob: { role: 'boss' } } } })).toEqual([
      'auth.personas.bob.role must be one of "admin", "editor", "viewer", "guest", got "boss"',
    ]);
    expect(configProblems({ cors: { origins: 'localhost:3000' } })[0]).toMatch(/^cors\.origins must be "\*", an origin .* got "localhost:3000"$/);
    expect(configProblems({ simulate: { rateLimit: 'fast' } })).toEqual(['simulate.rateLimit must be requests per window such as "5/10s", got "fast"']);
    expect(configProblems({ routes: { 'GET /x': 'nope' } })).toEqual([`routes["GET /x"] must be a handler (request, ctx) => value, or { handler, public?: boolean, scope?: 'stats:read' }, got "nope"`]);
    expect(configProblems({ webhooks: { subscriptions: [{ url: 'http://x' }] } })).toEqual(['webhooks.subscriptions[0].events is required']);
    expect(configProblems('port: 1')).toEqual(['the config must be an object, got "port: 1"']);
  });

  it('names a malformed key of a map with what it must look like', () => {
    expect(configProblems({ routes: { 'get /x': () => 1 } })[0]).toMatch(/^routes: "get \/x" is not a route such as "GET \/users\/:id"/);
    expect(configProblems({ routes: { 'GET x': () => 1 } })[0]).toMatch(/^routes: "GET x" is not a route/);
    expect(configProblems({ collections: { Invoices: { fixture: './i.json' } } })[0]).toMatch(/^collections: "Invoices" is not a collection name/);
    expect(configProblems({ collections: { invoices: {} } })).toEqual(['collections.invoices.fixture is required']);
    expect(configProblems({ collections: { users: { fixture: './u.json' } } })[0]).toMatch(/^collections: "users" is not a collection name .* other than users, posts/);
  });

  it('reports a few problems, each once, and keeps a union to one sentence', () => {
    const problems = configProblems({ prot: 1, hots: 'x', dbb: 'y', fixturs: 'z' });
    expect(problems).toHaveLength(3);
    expect(configProblems({ cors: { origins: ['http://a', 5] } })).toHaveLength(1);
  });

  it('describes schemas in words, and quotes values shortly', () => {
    expect(describeSchema({ type: 'integer', minimum: 1 })).toBe('an integer of at least 1');
    expect(describeSchema({ type: 'boolean' })).toBe('true or false');
    expect(quote('4730')).toBe('"4730"');
    expect(quote(4730)).toBe('4730');
    expect(quote(() => 1)).toBe('a function');
    expect(quote('x'.repeat(100))).toHaveLength(60);
    expect(formatPath(['routes', 'GET /x'])).toBe('routes["GET /x"]');
    expect(formatPath(['webhooks', 'subscriptions', '0', 'url'])).toBe('webhooks.subscriptions[0].url');
  });
});

describe('defineConfig', () => {
  it('is the identity, typed by the schema (tsc checks the lines marked below)', () => {
    const config = { port: 1, limits: { sandboxBytes: 0 }, routes: { 'GET /x': (_request: Request, ctx: { params: Record<string, string> }) => ctx.params } };
    expect(defineConfig(config)).toBe(config);
    // @ts-expect-error an unknown key is a type error in the editor too
    defineConfig({ prot: 4730 });
    // @ts-expect-error so is a mistyped value
    defineConfig({ limits: { maxPageSize: '5' } });
  });
});

describe('resolveConfig', () => {
  it('checks the object it is given and resolves the new limits to numbers', () => {
    expect(() => resolveConfig({ prot: 1 } as never)).toThrow('unknown key "prot" in the config (did you mean "port"?)');
    const resolved = resolveConfig({ limits: { sandboxTtl: '30m' } });
    expect(resolved.limits).toMatchObject({
      sandboxTtl: 1800,
      sandboxBytes: 8 * 1024 * 1024,
      eventsPerSandbox: 1000,
      telemetryPerSandbox: 10_000,
      fileBytes: 10 * 1024 * 1024,
      sandboxFileBytes: 50 * 1024 * 1024,
      filesPerSandbox: 100,
    });
    expect(resolveConfig({ limits: { sandboxBytes: 0 } }).limits.sandboxBytes).toBe(0);
    expect(resolved.cors).toEqual({ origins: '*' });
    expect(() => resolveConfig({ fixtures: './no-such-folder' }, {}, '/tmp')).toThrow('fixtures folder not found: ./no-such-folder');
  });
});
