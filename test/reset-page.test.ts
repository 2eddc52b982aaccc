import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { createMockServer, type MockServer, type MockSandbox } from '../dist/index.js';

/**
 * The password-reset mail's link (contract section 7): by default the mock's own page
 * `GET /reset-password`, which posts `{token, password}` in the browser's sandbox; with
 * `auth.resetUrl` a front-end's own page, so its reset form can be tested against the mock.
 */
const executablePath = '/usr/bin/chromium';
const haveChromium = existsSync(executablePath);

const servers: MockServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
});

async function serve(config: object = {}): Promise<MockServer> {
  const server = await createMockServer({ config });
  servers.push(server);
  return server;
}

/** Asks for a reset of user 4's password and answers the link of the mail. */
async function resetLink(sandbox: MockSandbox): Promise<{ link: string; token: string; username: string }> {
  const user = await (await sandbox.fetch('/users/4')).json();
  const asked = await sandbox.fetch('/auth/forgot-password', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: user.email }) });
  expect(asked.status).toBe(200);
  const [message] = (await (await sandbox.fetch('/inbox/messages')).json()).data;
  const link = /href="([^"]+)"/.exec(message.html)![1].replaceAll('&amp;', '&');
  expect(message.text).toContain(link);
  return { link, token: message.token, username: user.username };
}

const logIn = (sandbox: MockSandbox, username: string, password: string) =>
  sandbox.fetch('/auth/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username, password }) });

describe('the reset link', () => {
  it('by default opens the mock’s own page, a form that loads nothing from elsewhere', async () => {
    const server = await serve();
    const { link, token } = await resetLink(server.sandbox());
    expect(link).toBe(`${server.url}/reset-password?token=${token}`);
    const page = await fetch(link);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await page.text();
    expect(html).toContain('/api/v1/auth/reset-password');
    expect(html).toMatch(/<input[^>]+type="password"/);
    // Everything inline: no script, style sheet or image from a URL.
    expect(html).not.toMatch(/\b(src|href)=|@import|url\(/);
  });

  it('points at auth.resetUrl, keeping its query', async () => {
    const server = await serve({ auth: { resetUrl: 'http://localhost:5173/account/reset?from=mail' } });
    const { link, token } = await resetLink(server.sandbox());
    expect(link).toBe(`http://localhost:5173/account/reset?from=mail&token=${token}`);
  });

  it('refuses an auth.resetUrl that is neither an http(s) URL nor a path', async () => {
    await expect(createMockServer({ config: { auth: { resetUrl: 'ftp://example.test/reset' } } })).rejects.toThrow(/auth\.resetUrl/);
  });

  it.skipIf(!haveChromium)('the page sets the new password in the browser’s sandbox', { timeout: 60_000 }, async () => {
    const server = await serve();
    const sandbox = server.sandbox();
    const { link, username } = await resetLink(sandbox);
    const browser: Browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] });
    try {
      const context = await browser.newContext();
      await context.addCookies([{ name: 'svc_identity', value: sandbox.id, url: server.url }]);
      const page = await context.newPage();
      await page.goto(link);
      await page.getByLabel('New password').fill('s3cret-new');
      await page.getByRole('button', { name: 'Set password' }).click();
      await expect.poll(() => page.locator('[role=status]').textContent()).toMatch(/password changed/);
    } finally {
      await browser.close();
    }
    expect((await logIn(sandbox, username, 's3cret-new')).status).toBe(200);
    expect((await logIn(sandbox, username, 'password')).status).toBe(401);
  });
});
