// mockapi's config, written by `mockapi init`. Every key is optional, and the flags of
// `mockapi serve` win over this file. The package's mockapi.config.example.ts shows every key.
import { defineConfig } from 'mockapi-sandbox';

export default defineConfig({
  // The baseline every sandbox starts from: one `<collection>.json` array per collection, with
  // integer ids. Edit them freely; the server reloads them when it starts after a change.
  fixtures: './fixtures',

  // The SQLite file holding every sandbox, relative to this file (':memory:' keeps nothing).
  db: '.mockapi/mockapi.db',

  // Where to listen (flags --port and --host); port 0 takes any free port.
  // port: 4010,
  // host: '127.0.0.1',

  // limits: {
  //   createdPerCollection: 30, // live records a sandbox may create per collection
  //   maxPageSize: 200,         // highest `limit` of a list page
  //   bodyBytes: 1024 * 1024,   // largest request body
  //   sandboxTtl: '7d',         // an idle sandbox is purged after this; 0 never
  //   sandboxBytes: 8388608,    // bytes of records a sandbox may store; 0 no bound
  // },

  // Your own endpoints under /api/v1, beside the generated ones (README "Custom routes"):
  // 'METHOD /path/:param' → (request, ctx) => value | Response. ctx.collection(name) reads and
  // writes the caller's sandbox with the rules of the REST routes. Two to start from:
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
    // A read: what the caller's sandbox holds, in one answer.
    'GET /stats': async (_request, ctx) => {
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
});
