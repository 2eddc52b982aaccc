import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from './helpers/server.js';
import { createMockServer } from '../dist/index.js';

// Runs the Playwright suite of test/e2e (the fixture `mockapi-sandbox/playwright`, built, in
// Debian's chromium with 3 workers) and reads its JSON report. CI installs chromium (.ci/run).
const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const hasChromium = existsSync(chromium);
const playwrightCli = join(repoRoot, 'node_modules/@playwright/test/cli.js');
const e2eConfig = join(repoRoot, 'test/e2e/playwright.config.ts');

interface Attachment {
  name: string;
  contentType: string;
  body?: string;
}
interface ReportTest {
  title: string;
  status: string;
  annotations: Array<{ type: string; description?: string }>;
  results: Array<{ status: string; attachments: Attachment[] }>;
}
interface ReportSuite {
  specs?: Array<{ title: string; tests: Array<Omit<ReportTest, 'title'>> }>;
  suites?: ReportSuite[];
}

let dir: string;

/** Runs the e2e suite with `env` and answers its exit code and every test of its JSON report. */
async function runSuite(env: Record<string, string>, args: string[] = []): Promise<{ code: number | null; tests: ReportTest[]; output: string }> {
  const report = join(dir, `report-${Date.now()}.json`);
  const child = spawn(process.execPath, [playwrightCli, 'test', '-c', e2eConfig, '--reporter=json', ...args], {
    cwd: repoRoot,
    env: { ...process.env, MOCKAPI_URL: '', MOCKAPI_E2E_FAILING: '', CI: '1', PLAYWRIGHT_JSON_OUTPUT_NAME: report, MOCKAPI_E2E_OUTPUT: join(dir, 'results'), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const code = await new Promise<number | null>((done) => child.once('exit', done));
  if (!existsSync(report)) throw new Error(`playwright wrote no report (exit ${code}):\n${output.slice(-3000)}`);
  const tests: ReportTest[] = [];
  const walk = (suite: ReportSuite) => {
    for (const spec of suite.specs ?? []) for (const test of spec.tests) tests.push({ title: spec.title, ...test });
    for (const inner of suite.suites ?? []) walk(inner);
  };
  walk(JSON.parse(readFileSync(report, 'utf8')) as ReportSuite);
  return { code, tests, output };
}

const sandboxOf = (test: ReportTest) => test.annotations.find((annotation) => annotation.type === 'mockapi-sandbox')?.description;

describe.skipIf(!hasChromium)(hasChromium ? 'the Playwright fixture' : `the Playwright fixture (skipped: no browser at ${chromium}; install Debian's chromium)`, () => {
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'mockapi-playwright-'));
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('gives every test its own sandbox, and a failed test’s report carries its export', { timeout: 180_000 }, async () => {
    const { tests, output } = await runSuite({ MOCKAPI_E2E_FAILING: '1' });
    const failing = tests.filter((test) => test.status !== 'expected');
    const passed = tests.filter((test) => test.status === 'expected');
    expect(failing.map((test) => test.title), output.slice(-3000)).toEqual(['a failing test leaves its sandbox export in the report']);
    expect(passed.length).toBeGreaterThanOrEqual(10);
    for (const test of passed) expect(test.results[0].attachments.map((a) => a.name)).not.toContain('mockapi-export.json');

    // Each test ran in a sandbox of its own.
    const ids = tests.map(sandboxOf);
    expect(ids.every((id) => typeof id === 'string' && /^[A-Za-z0-9_-]{22,}$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(tests.length);

    const [failed] = failing;
    const attachment = failed.results[0].attachments.find((a) => a.name === 'mockapi-export.json');
    expect(attachment?.contentType).toBe('application/json');
    const document = JSON.parse(Buffer.from(attachment!.body!, 'base64').toString('utf8')) as {
      format: string;
      sandboxes: Array<{ id: string; collections: Record<string, { created: Array<{ title: string }> }> }>;
    };
    expect(document.format).toBe('mockapi-export');
    expect(document.sandboxes.map((sandbox) => sandbox.id)).toEqual([sandboxOf(failed)]);
    expect(document.sandboxes[0].collections.posts.created.map((post) => post.title)).toEqual([`evidence ${sandboxOf(failed)}`]);
  });

  it('uses the server named by MOCKAPI_URL instead of starting one', { timeout: 120_000 }, async () => {
    const server = await createMockServer();
    try {
      const { code, tests, output } = await runSuite({ MOCKAPI_URL: `${server.url}/` }, ['--grep', 'through request, test 1$', '--workers', '1']);
      expect({ code, titles: tests.map((test) => test.title) }, output.slice(-3000)).toEqual({ code: 0, titles: ['through request, test 1'] });
      // Its writes are in this server's database, in the sandbox the report names.
      const document = await server.sandbox(sandboxOf(tests[0])).export();
      expect(document.sandboxes[0].collections.posts.created).toHaveLength(2);
    } finally {
      await server.close();
    }
  });
});
