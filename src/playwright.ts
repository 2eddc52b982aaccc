// `mockapi-sandbox/playwright`: the only module that imports @playwright/test (an optional peer
// dependency), so the package's main entry loads without it.
import { test as base, expect } from '@playwright/test';
import { identityCookie } from './auth/identity.js';
import { bindSandbox, createMockServer, type MockapiOptions, type MockSandbox } from './mock-server.js';

export type { MockapiOptions, MockServerOptions } from './mock-server.js';

/** What a test sees of its mock API: where it is and which sandbox is the test's own. */
export interface MockapiFixture {
  /** The server root, no trailing slash: `http://127.0.0.1:43567`. */
  url: string;
  /** `${url}/api/v1`. */
  api: string;
  /** This test's sandbox id (also the `svc_identity` cookie of `page`, `context` and `request`). */
  sandboxId: string;
  /** This test's sandbox: `fetch('/posts')`, `reset()`, `export()`. */
  sandbox: MockSandbox;
}

export interface MockapiTestFixtures {
  mockapi: MockapiFixture;
}

/** `mockapiOptions`: the server each worker starts (`use: { mockapiOptions: {...} }`); unused when `MOCKAPI_URL` is set. */
export interface MockapiWorkerFixtures extends MockapiOptions {
  /** The root URL of this worker's server (or `MOCKAPI_URL`). */
  mockapiServerUrl: string;
}

/**
 * Playwright's `test` with one mock server per worker (never shared between workers) and one
 * fresh sandbox per test, set as the `svc_identity` cookie on the browser context and on the
 * `request` fixture. A failed test's report carries its sandbox's export (`mockapi-export.json`).
 */
export const test = base.extend<MockapiTestFixtures, MockapiWorkerFixtures>({
  mockapiOptions: [{}, { scope: 'worker', option: true }],

  mockapiServerUrl: [
    async ({ mockapiOptions }, use) => {
      const external = process.env.MOCKAPI_URL?.trim();
      if (external) {
        await use(external.replace(/\/+$/, ''));
        return;
      }
      const server = await createMockServer(mockapiOptions);
      try {
        await use(server.url);
      } finally {
        await server.close();
      }
    },
    { scope: 'worker' },
  ],

  mockapi: async ({ mockapiServerUrl }, use, testInfo) => {
    const sandbox = bindSandbox(mockapiServerUrl);
    testInfo.annotations.push({ type: 'mockapi-sandbox', description: sandbox.id });
    await use({ url: mockapiServerUrl, api: `${mockapiServerUrl}/api/v1`, sandboxId: sandbox.id, sandbox });
    if (testInfo.status !== testInfo.expectedStatus) {
      // What the failed test left in its sandbox, for the report; a dead server must not hide the failure.
      const body = await sandbox.export().then(
        (document) => JSON.stringify(document, null, 2),
        (error: Error) => JSON.stringify({ error: `mockapi: the sandbox export failed: ${error.message}` }),
      );
      await testInfo.attach('mockapi-export.json', { body, contentType: 'application/json' });
    }
  },

  context: async ({ context, mockapi }, use) => {
    await context.addCookies([{ ...sandboxCookie(mockapi), url: mockapi.url }]);
    await use(context);
  },

  // Playwright's own `request` is `playwright.request.newContext()` with the config's options
  // filled in; this one adds the sandbox cookie (scoped to the mock server, like a browser's).
  request: async ({ playwright, mockapi }, use) => {
    const cookie = { ...sandboxCookie(mockapi), domain: new URL(mockapi.url).hostname, path: '/', expires: -1 };
    const request = await playwright.request.newContext({ storageState: { cookies: [cookie], origins: [] } });
    try {
      await use(request);
    } finally {
      await request.dispose();
    }
  },
});

/** The cookie the server itself would set (`HttpOnly; SameSite=Lax`), naming the test's sandbox. */
function sandboxCookie(mockapi: MockapiFixture) {
  return { name: identityCookie, value: mockapi.sandboxId, httpOnly: true, secure: false, sameSite: 'Lax' as const };
}

export { expect };
