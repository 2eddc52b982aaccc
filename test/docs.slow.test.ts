import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from './helpers/server.js';

// Debian's chromium (.ci/run installs it): Playwright's own browser download does not work here.
const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const hasChromium = existsSync(executablePath);

let server: RunningServer;
let browser: Browser;

describe.skipIf(!hasChromium)(hasChromium ? 'GET /docs in a browser' : `GET /docs in a browser (skipped: no browser at ${executablePath})`, () => {
  beforeAll(async () => {
    server = await startServer();
    browser = await chromium.launch({
      executablePath,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
    });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await server?.cleanup();
  });

  it('renders the operations with every request to another origin blocked, and tries none but what its CSP refuses', { timeout: 90_000 }, async () => {
    const origin = new URL(server.url).origin;
    const context = await browser.newContext();
    const elsewhere: string[] = [];
    // Every request that reaches the network layer: same origin goes on, anything else is aborted and noted.
    await context.route('**/*', (route) => {
      const url = route.request().url();
      if (new URL(url).origin === origin) return route.continue();
      elsewhere.push(url);
      return route.abort();
    });
    const page = await context.newPage();
    await page.addInitScript(() => {
      const seen: string[] = [];
      (window as unknown as { violations: string[] }).violations = seen;
      document.addEventListener('securitypolicyviolation', (event) => seen.push(`${event.violatedDirective} ${event.blockedURI}`));
    });
    const failed: string[] = [];
    page.on('pageerror', (error) => failed.push(error.message));

    const answer = await page.goto(`${server.url}/docs`);
    expect(answer?.status()).toBe(200);
    expect(answer?.headers()['content-security-policy']).toContain("default-src 'self'");

    // Redoc's own rendering: the sidebar and the operations of the document, and the intro Markdown.
    await page.getByRole('heading', { name: 'List posts' }).first().waitFor({ timeout: 60_000 });
    for (const name of ['Create a post', 'Log in', 'Take a snapshot', 'Subscribe to events', 'The event stream (server-sent events)', 'Run a GraphQL query', 'Export a custom collection as CSV or XLSX']) {
      await expect(page.getByRole('heading', { name }).first().isVisible()).resolves.toBe(true);
    }
    await expect(page.getByRole('heading', { name: 'Quick start' }).first().isVisible()).resolves.toBe(true);
    await expect(page.getByText('X-Simulate-Latency').first().isVisible()).resolves.toBe(true);

    const violations = await page.evaluate(() => (window as unknown as { violations: string[] }).violations);
    // Nothing but the page's origin reached the network; the only other load (Redoc's CDN logo) never left the page.
    expect(elsewhere).toEqual([]);
    for (const violation of violations) expect(violation).not.toMatch(new RegExp(`${origin}/`));
    expect(failed).toEqual([]);
    await context.close();
  });
});
