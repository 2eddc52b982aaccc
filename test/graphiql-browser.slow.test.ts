import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { useServer } from './helpers/server.js';

const server = useServer();

// A real browser (Debian's chromium through playwright-core), offline: every request that is not
// to the local server is blocked, and the page must still render and run a query.
const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const haveChromium = existsSync(chromiumPath);
if (!haveChromium) console.warn(`skipping the GraphiQL browser test: no chromium at ${chromiumPath} (set CHROMIUM_PATH)`);

describe.skipIf(!haveChromium)('GraphiQL in a browser, offline', () => {
  it('loads and runs the default query in the sandbox of the cookie', { timeout: 60_000 }, async () => {
    const { chromium } = await import('playwright-core');
    const browser = await chromium.launch({
      executablePath: chromiumPath,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    try {
      const context = await browser.newContext();
      const local = new URL(server.url).host;
      const blocked: string[] = [];
      await context.route('**/*', (route) => {
        const url = new URL(route.request().url());
        if (url.host === local || url.protocol === 'data:' || url.protocol === 'blob:') return route.continue();
        blocked.push(url.href);
        return route.abort('internetdisconnected');
      });
      // A record only this sandbox holds: the page's query must see it.
      await context.addCookies([{ name: 'svc_identity', value: 'browser-graphiql', url: server.url }]);
      await fetch(`${server.api}/posts`, {
        method: 'POST',
        headers: { cookie: 'svc_identity=browser-graphiql', 'content-type': 'application/json' },
        body: JSON.stringify({ user_id: 1, title: 'seen by GraphiQL', body: 'b' }),
      });
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      await page.goto(`${server.api}/graphql`);
      await page.waitForSelector('.graphiql-execute-button', { timeout: 30_000 });
      await page.click('.graphiql-execute-button');
      await page.waitForFunction(() => document.querySelector('.graphiql-response')?.textContent?.includes('seen by GraphiQL'), undefined, { timeout: 30_000 });
      expect(errors).toEqual([]);
      expect(blocked).toEqual([]);
    } finally {
      await browser.close();
    }
  });
});
