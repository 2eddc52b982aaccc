import { describe, expect, it } from 'vitest';
import { useServer } from './helpers/server.js';

// The GraphiQL page a browser gets from the GraphQL endpoint, from the installed packages (a real
// browser loads it in graphiql-browser.slow.test.ts).
const server = useServer();

describe('GraphiQL page', () => {
  it('is served to browsers from local assets, never a CDN', async () => {
    const page = await fetch(`${server.api}/graphql`, { headers: { accept: 'text/html,application/xhtml+xml' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    const html = await page.text();
    expect(html).not.toMatch(/https?:\/\//);
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(assets).toHaveLength(4);
    for (const asset of assets) {
      const answer = await fetch(`${server.url}${asset}`);
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toMatch(/^text\/(css|javascript)/);
      expect((await answer.arrayBuffer()).byteLength).toBeGreaterThan(5_000);
    }
    // A browser GET with a query runs it.
    const run = await fetch(`${server.api}/graphql?query=${encodeURIComponent('{ post(id: 1) { id } }')}`, { headers: { accept: 'text/html, application/json' } });
    expect(await run.json()).toEqual({ data: { post: { id: '1' } } });
    expect((await fetch(`${server.api}/graphql/nope.js`)).status).toBe(404);
  });
});
