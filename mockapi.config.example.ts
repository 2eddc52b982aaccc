// Every key of mockapi's config, set to its default (README: "Configuration"). Every key is optional,
// and the flags of `mockapi serve` win over this file. Copy it to `mockapi.config.ts` to start.
import { defineConfig } from 'mockapi-sandbox';

export default defineConfig({
  // TCP port to listen on; 0 picks any free port (flag: --port).
  port: 4010,
  // Interface to listen on; '0.0.0.0' serves the whole network (flag: --host).
  host: '127.0.0.1',
  // SQLite file holding every sandbox, relative to this file; ':memory:' keeps nothing (flag: --db).
  db: '.mockapi/mockapi.db',
  // Folder of `<collection>.json` baseline arrays; default: the package's own (`mockapi init` copies it here).
  // fixtures: './fixtures',
  // Extra baseline collections served at /api/v1/<name> like the core ones (README: "Config-declared
  // collections"): a fixture file of records with integer ids (relative to this file), an optional JSON
  // Schema that validates writes (default: any object), the fields `q` searches (default: every top-level
  // string field) and belongsTo relations (here: /invoices/1/user, _expand=user, /users/1/invoices, _embed=invoices).
  // collections: {
  //   invoices: {
  //     fixture: './examples/invoices.json',
  //     schema: {
  //       type: 'object',
  //       properties: { number: { type: 'string' }, customer: { type: 'string' }, amount: { type: 'number', minimum: 0 }, paid: { type: 'boolean' }, note: { type: 'string' } },
  //       required: ['number', 'amount'],
  //     },
  //     search: ['number', 'customer'],
  //     relations: { user: { belongsTo: 'users', key: 'user_id' } },
  //   },
  // },
  collections: {},
  auth: {
    // HS256 key that signs the tokens; unset: mockapi chooses one itself.
    // secret: 'change-me-to-a-long-random-string',
    // Password of the personas and of every baseline user.
    password: 'password',
    // Lifetime of access tokens: seconds or a duration such as '15m'.
    accessTtl: '15m',
    // Lifetime of refresh tokens.
    refreshTtl: '7d',
    // When true, requests without a token are guests that may only read (flag: --auth-required).
    required: false,
    // Leeway on a token's exp, iat and nbf: seconds or a duration.
    clockTolerance: 0,
    // The page the password-reset mail links to, with ?token=<token> added: your front-end's own
    // ('http://localhost:5173/reset-password'), or a path on mockapi; the default is its own small form.
    resetUrl: '/reset-password',
    // Personas to add or change beside admin, editor and viewer, keyed by username:
    // personas: { support: { email: 'support@mockapi.local', name: 'Support', password: 'secret', role: 'viewer', scopes: ['posts:write'] } },
    personas: {},
  },
  limits: {
    // Live records a sandbox may create per collection.
    createdPerCollection: 30,
    // Highest `limit` of a list page.
    maxPageSize: 200,
    // Largest request body in bytes (1 MiB).
    bodyBytes: 1024 * 1024,
    // Custom collections per sandbox.
    customCollections: 20,
    // Records per custom collection.
    customRecords: 1000,
    // A sandbox idle for longer is purged: seconds or a duration; 0 never expires.
    sandboxTtl: '7d',
    // Sandboxes holding data; one more purges the least recently active.
    maxSandboxes: 10_000,
    // Requests kept in each sandbox's activity log.
    activity: 100,
    // UTF-8 bytes of record JSON a sandbox may store, overlay and snapshots together (8 MiB); 0: no bound.
    sandboxBytes: 8 * 1024 * 1024,
    // Events kept in each sandbox's event log (GET /events, the stream's replay).
    eventsPerSandbox: 1000,
  },
  webhooks: {
    // Time a receiver has to answer one delivery attempt.
    timeoutMs: 5000,
    // Deliveries in all (the first one included) before a delivery fails.
    attempts: 3,
    // First retry delay; it doubles each time, with jitter.
    backoffMs: 1000,
    // Hosts deliveries may go to; default: any http(s) host.
    // allowHosts: ['localhost', '127.0.0.1'],
    // Subscriptions that receive every sandbox's events:
    // subscriptions: [{ url: 'http://localhost:3001/hooks', events: ['post.*'], secret: 'shh', signature: 'timestamped' }],
    subscriptions: [],
  },
  simulate: {
    // Delay on every answer: '250', '250ms', '1s' or a random range '100-400' (flag: --latency).
    // latency: '100-400',
    // Requests allowed per sandbox and window.
    // rateLimit: '5/10s',
  },
  cors: {
    // Origins allowed to call the API from a browser: '*', one origin, or an array of them.
    origins: '*',
  },
  // Custom routes under /api/v1, beside the generated ones: 'METHOD /path/:param' mapped to a
  // handler (request, ctx) => value | Response. ctx.collection(name) reads and writes the caller's
  // sandbox with the rules of the REST routes (validation, the created-records cap, roles, events).
  // Under auth.required a guest may call a route only when it is declared { public: true, handler };
  // { scope: 'stats:read', handler } names the scope a token needs.
  routes: {
    // A write: like a post. Likes are kept as comments with the body '+1', in the caller's sandbox.
    'POST /posts/:id/like': async (_request, ctx) => {
      const post = await ctx.collection('posts').get(ctx.params.id);
      if (!post) throw ctx.problem(404, 'NOT_FOUND', `post ${ctx.params.id} does not exist in this sandbox`);
      const email = typeof ctx.user?.email === 'string' ? ctx.user.email : 'fan@example.com';
      await ctx.collection('comments').create({ post_id: post.id, name: 'Like', email, body: '+1' });
      const likes = await ctx.collection('comments').list({ post_id: post.id, body: '+1', limit: 1 });
      return { post_id: post.id, likes: likes.pagination.total };
    },
    // A read: what the caller's sandbox holds, in one answer. Public: guests may call it too.
    'GET /stats': {
      public: true,
      handler: async (_request, ctx) => {
        const count = async (name: 'users' | 'posts' | 'comments' | 'todos', filters = {}) =>
          (await ctx.collection(name).list({ ...filters, limit: 1 })).pagination.total;
        return {
          users: await count('users'),
          posts: await count('posts'),
          comments: await count('comments'),
          todos: { total: await count('todos'), completed: await count('todos', { completed: true }) },
        };
      },
    },
  },
});
