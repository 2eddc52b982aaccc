import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { useServer } from './helpers/server.js';

/**
 * A real browser (Debian's chromium, driven by playwright-core) on a page served from another
 * origin calls mockapi with `fetch(..., {credentials: 'include'})` (contract section 11).
 *
 * What travels: the page on http://127.0.0.1:<page port> and mockapi on http://127.0.0.1:<api
 * port> are the same site (ports do not make sites), so the SameSite=Lax `svc_identity` cookie
 * set by a credentialed fetch comes back on the next one. A page on http://localhost:<port>
 * calling 127.0.0.1 is another site: the cookie does not travel, and X-Sandbox (or a token) names
 * the sandbox instead; calling mockapi as localhost from there is the same site again.
 */
const executablePath = '/usr/bin/chromium';
const haveChromium = existsSync(executablePath);
if (!haveChromium) console.warn(`browser-cors.slow.test.ts skipped: ${executablePath} is missing (apt-get install chromium)`);

const api = useServer();

describe.skipIf(!haveChromium)('a page on another origin, in chromium', () => {
  let browser: Browser;
  let pages: Server;
  let pagePort: number;

  beforeAll(async () => {
    pages = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<!doctype html><title>dev server</title><h1>front-end dev server</h1>');
    });
    await new Promise<void>((done) => pages.listen(0, '127.0.0.1', done));
    pagePort = (pages.address() as AddressInfo).port;
    browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((done) => pages?.close(done));
  });

  async function open(host = '127.0.0.1'): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`http://${host}:${pagePort}/`);
    return { context, page };
  }

  /** Runs `fetch` in the page (its origin, its cookies) and returns what the page's code sees. */
  function call(page: Page, path: string, init: { method?: string; headers?: Record<string, string>; body?: unknown; base?: string } = {}) {
    return page.evaluate(
      async ({ url, init }) => {
        const started = performance.now();
        try {
          const res = await fetch(url, {
            method: init.method ?? 'GET',
            credentials: 'include',
            headers: { ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}), ...init.headers },
            body: init.body === undefined ? undefined : JSON.stringify(init.body),
          });
          const text = await res.text();
          return {
            ok: true as const,
            status: res.status,
            body: text ? JSON.parse(text) : null,
            ms: performance.now() - started,
            remaining: res.headers.get('ratelimit-remaining'),
            retryAfter: res.headers.get('retry-after'),
          };
        } catch (error) {
          return { ok: false as const, error: String(error), ms: performance.now() - started };
        }
      },
      { url: `${init.base ?? api.api}${path}`, init: { ...init, base: undefined } },
    );
  }

  it('a create then a list shows the page its own sandbox (the cookie travels between 127.0.0.1 ports); another context has its own', async () => {
    const a = await open();
    const created = await call(a.page, '/posts', { method: 'POST', body: { user_id: 1, title: 'from page A', body: 'b' } });
    expect(created.ok && created.status, JSON.stringify(created)).toBe(200);
    const id = created.ok ? created.body.id : '';
    const listA = await call(a.page, '/posts?limit=5');
    expect(listA.ok && listA.body.data.map((p: { id: string }) => p.id)).toContain(id);
    expect((await a.context.cookies(api.url)).map((c) => c.name)).toContain('svc_identity');

    const b = await open();
    const listB = await call(b.page, '/posts?limit=5');
    expect(listB.ok && listB.status).toBe(200);
    expect(listB.ok && listB.body.data.map((p: { id: string }) => p.id)).not.toContain(id);
    expect(listB.ok && listB.body.pagination.total).toBe(100);
    await a.context.close();
    await b.context.close();
  });

  it('from another site (localhost → 127.0.0.1) the cookie does not travel; X-Sandbox names the sandbox', async () => {
    const { context, page } = await open('localhost');
    const box = `page-${crypto.randomUUID()}`;
    const created = await call(page, '/posts', { method: 'POST', body: { user_id: 1, title: 'cross-site', body: 'b' } });
    expect(created.ok && created.status, JSON.stringify(created)).toBe(200);
    const withoutHeader = await call(page, '/posts?limit=5');
    expect(withoutHeader.ok && withoutHeader.body.data.some((p: { title: string }) => p.title === 'cross-site')).toBe(false);

    const named = await call(page, '/posts', { method: 'POST', headers: { 'x-sandbox': box }, body: { user_id: 1, title: 'named', body: 'b' } });
    expect(named.ok && named.status).toBe(200);
    const list = await call(page, '/posts?limit=5', { headers: { 'x-sandbox': box } });
    expect(list.ok && list.body.data.map((p: { title: string }) => p.title)).toContain('named');
    await context.close();
  });

  it('a page on localhost calling mockapi as localhost keeps the cookie (same site)', async () => {
    const { context, page } = await open('localhost');
    const base = api.api.replace('127.0.0.1', 'localhost');
    const created = await call(page, '/posts', { method: 'POST', base, body: { user_id: 1, title: 'localhost page', body: 'b' } });
    expect(created.ok && created.status, JSON.stringify(created)).toBe(200);
    const list = await call(page, '/posts?limit=5', { base });
    expect(list.ok && list.body.data.map((p: { title: string }) => p.title)).toContain('localhost page');
    await context.close();
  });

  it('simulated latency, statuses, failures, rate limits and resets reach the page as real responses', async () => {
    const { context, page } = await open();
    const slow = await call(page, '/posts?limit=1', { headers: { 'x-simulate-latency': '400' } });
    expect(slow.ok && slow.status).toBe(200);
    expect(slow.ms).toBeGreaterThanOrEqual(380);
    const slowQuery = await call(page, '/posts?limit=1&_delay=300ms');
    expect(slowQuery.ok && slowQuery.status).toBe(200);
    expect(slowQuery.ms).toBeGreaterThanOrEqual(280);

    const forced = await call(page, '/posts', { headers: { 'x-simulate-status': '503' } });
    expect(forced.ok && [forced.status, forced.body.code]).toEqual([503, 'SIMULATED_STATUS']);
    const viaQuery = await call(page, '/posts/1?_status=404');
    expect(viaQuery.ok && [viaQuery.status, viaQuery.body.code]).toEqual([404, 'SIMULATED_STATUS']);
    const flaky = await call(page, '/posts', { headers: { 'x-simulate-flaky': '1' } });
    expect(flaky.ok && [flaky.status, flaky.body.code]).toEqual([503, 'SIMULATED_FAILURE']);

    const limit = { 'x-simulate-rate-limit': '1/1h', 'x-sandbox': `limited-${crypto.randomUUID()}` };
    const first = await call(page, '/posts?limit=1', { headers: limit });
    expect(first.ok && [first.status, first.remaining]).toEqual([200, '0']);
    const refused = await call(page, '/posts?limit=1', { headers: limit });
    expect(refused.ok && [refused.status, refused.body.code, refused.remaining]).toEqual([429, 'RATE_LIMITED', '0']);
    expect(refused.ok && Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);

    const reset = await call(page, '/posts', { headers: { 'x-simulate-network': 'reset' } });
    expect(reset.ok).toBe(false);
    expect(reset.ok ? '' : reset.error).toMatch(/TypeError/);
    await context.close();
  });

  it('a preflighted PATCH with Authorization works after a login', async () => {
    const { context, page } = await open();
    const login = await call(page, '/auth/login', { method: 'POST', body: { username: 'admin', password: 'password' } });
    expect(login.ok && login.status, JSON.stringify(login)).toBe(200);
    const token = login.ok ? login.body.access_token : '';
    expect(token).toBeTypeOf('string');
    const auth = { authorization: `Bearer ${token}` };
    const patched = await call(page, '/posts/1', { method: 'PATCH', headers: auth, body: { title: 'patched from the page' } });
    expect(patched.ok && [patched.status, patched.body.title], JSON.stringify(patched)).toEqual([200, 'patched from the page']);
    const read = await call(page, '/posts/1', { headers: auth });
    expect(read.ok && read.body.title).toBe('patched from the page');
    await context.close();
  });
});
