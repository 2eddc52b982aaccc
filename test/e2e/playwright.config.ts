import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from '@playwright/test';

// The e2e suite of the Playwright fixture (`mockapi-sandbox/playwright`), run against the BUILT
// package (dist/): `npm run build && npx playwright test -c test/e2e/playwright.config.ts`.
// test/playwright-fixture.slow.test.ts runs it from vitest and checks its JSON report.
export default defineConfig({
  testDir: '.',
  testMatch: '*.spec.ts',
  // Traces and error context of failed tests: outside the repository.
  outputDir: process.env.MOCKAPI_E2E_OUTPUT ?? join(tmpdir(), 'mockapi-e2e-results'),
  fullyParallel: true,
  workers: 3,
  retries: 0,
  forbidOnly: true,
  reporter: 'list',
  timeout: 30_000,
  use: {
    browserName: 'chromium',
    headless: true,
    launchOptions: {
      // Debian's chromium: Playwright's own browser download does not work on this machine.
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      // As root in a container Chromium needs --no-sandbox; the rest keeps it off the (closed) network.
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    },
  },
});
