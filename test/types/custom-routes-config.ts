// A config as a user writes it, compiled by test/custom-routes-types.slow.test.ts: `ctx.collection('posts')`
// and its operations are typed through defineConfig. Each line after `@ts-expect-error` is a
// wrong call that must not compile (tsc fails on an expect-error line that compiles).
import { defineConfig, type Post } from 'mockapi-sandbox';

export default defineConfig({
  routes: {
    'GET /posts/:id/summary': async (request, ctx) => {
      const posts = ctx.collection('posts');
      const post = await posts.get(ctx.params.id);
      if (!post) throw ctx.problem(404, 'NOT_FOUND', 'no such post');
      const title: string = post.title;
      const page = await ctx.collection('comments').list({ post_id: post.id, _sort: '-created_at', limit: 5 });
      const first: string | undefined = page.data[0]?.email;
      const method: string = request.method;
      return { title, first, total: page.pagination.total, method, q: ctx.query.get('q'), sandbox: ctx.sandbox, role: ctx.role };
    },
    'POST /posts': async (request, ctx) => {
      const created: Post = await ctx.collection('posts').create({ user_id: 1, title: 't', body: 'b' });
      await ctx.collection('posts').patch(created.id, { title: 'new', body: null });
      await ctx.collection('todos').replace(1, { user_id: 1, title: 'x', completed: true });
      const removed = await ctx.collection('users').remove(created.id);
      // A collection the types do not know (config-declared, custom) takes any object.
      await ctx.collection('invoices').create({ number: 'A-1', total: 3 });
      return new Response(removed.username);
    },
    'DELETE /nothing': () => undefined,
  },
});

export const wrong = defineConfig({
  routes: {
    'GET /wrong': async (_request, ctx) => {
      const posts = ctx.collection('posts');
      // @ts-expect-error: no such operation
      await posts.lst();
      // @ts-expect-error: get takes an id
      await posts.get();
      // @ts-expect-error: a post has no field "titel"
      await posts.create({ user_id: 1, titel: 't', body: 'b' });
      // @ts-expect-error: a post needs its title
      await posts.create({ user_id: 1, body: 'b' });
      // @ts-expect-error: a patch of a post is an object of its fields
      await posts.patch(1, 'title');
      // @ts-expect-error: _order is asc or desc
      await posts.list({ _order: 'up' });
      // @ts-expect-error: a list query is an object of parameters
      await posts.list('limit=5');
      const post = await posts.get(1);
      // @ts-expect-error: the record may be undefined
      post.title;
      // @ts-expect-error: a post's title is a string
      const n: number = post!.title;
      // @ts-expect-error: problem takes a status, a code and a detail
      throw ctx.problem('NOT_FOUND');
      return n;
    },
  },
});
