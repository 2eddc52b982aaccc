import { execFile, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from './helpers/server.js';

/**
 * The package as a user gets it: `npm pack` (as `npm publish` would), installed into a fresh
 * project, used through its bins and its types, from ESM and from CommonJS: `require`, Jest, and
 * a Playwright spec in a TypeScript project without `"type": "module"` (Debian's chromium).
 *
 * The install is offline, from the npm cache that the repo's own `npm ci` filled: the project
 * gets a lockfile made from the repo's (the package's runtime dependencies at the versions the
 * repo tested, with the registry addresses npm needs to find them in the cache). It runs with
 * --ignore-scripts, as a user with strict `allowScripts` would, which leaves better-sqlite3
 * unbuilt: that is checked first, then the repo's already-built binding (the same version,
 * pinned by the lockfile) is copied in instead of compiling it again for a minute. The test
 * runners (jest, @playwright/test) and @types/node are the repo's own, linked into the project.
 */

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8'));
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
// Never the registry: whatever is not in the cache fails at once instead of downloading.
const offline = { ...process.env, npm_config_offline: 'true', npm_config_audit: 'false', npm_config_fund: 'false', NO_COLOR: '1' };

function run(file: string, args: string[], cwd: string, env: Record<string, string> = {}): Promise<Run> {
  return new Promise((done) => {
    execFile(file, args, { cwd, env: { ...offline, ...env }, timeout: 90_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) =>
      done({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** stderr without npm's own notices and warnings about the machine's npm config. */
const ownLines = (stderr: string) => stderr.split('\n').filter((line) => line && !/^npm (warn|notice)/.test(line));

let work: string;
let app: string;
let packed: { filename: string; files: { path: string }[] };
/** Why the install could not happen offline, when it could not. */
let notInstalled: string | undefined;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'mockapi-package-'));
  // --ignore-scripts: `prepack` would build dist/ again; the suite runs after `npm run build`.
  const pack = await run(npm, ['pack', '--ignore-scripts', '--json', '--pack-destination', work], repoRoot);
  expect(pack.code, pack.stderr).toBe(0);
  packed = JSON.parse(pack.stdout)[0];

  app = join(work, 'app');
  mkdirSync(app);
  const tarball = `file:../${packed.filename}`;
  const lock = JSON.parse(readFileSync(join(repoRoot, 'package-lock.json'), 'utf8'));
  const packages: Record<string, unknown> = {
    '': { name: 'app', dependencies: { [pkg.name]: tarball } },
    [`node_modules/${pkg.name}`]: { version: pkg.version, resolved: tarball, license: pkg.license, dependencies: pkg.dependencies, bin: pkg.bin, engines: pkg.engines },
  };
  for (const [path, entry] of Object.entries<Record<string, unknown>>(lock.packages)) {
    if (!path || entry.dev || entry.devOptional) continue;
    const name = (entry.name as string | undefined) ?? path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
    packages[path] = { resolved: `https://registry.npmjs.org/${name}/-/${name.split('/').pop()}-${entry.version}.tgz`, ...entry };
  }
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module', dependencies: { [pkg.name]: tarball } }, null, 2));
  writeFileSync(join(app, 'package-lock.json'), JSON.stringify({ name: 'app', lockfileVersion: 3, requires: true, packages }, null, 2));
  const install = await run(npm, ['ci', '--offline', '--ignore-scripts'], app);
  if (install.code !== 0) {
    if (!/ENOTCACHED/.test(install.stderr)) throw new Error(`npm ci of the packed tarball failed:\n${install.stderr}`);
    notInstalled = `the npm cache lacks a dependency (run \`npm ci\` in the repo once with the registry reachable): ${ownLines(install.stderr).find((line) => /request to/.test(line)) ?? ''}`;
  }
}, 120_000);

afterAll(() => rmSync(work, { recursive: true, force: true }), 120_000);

describe('npm pack', () => {
  it('ships the CLI, its build, fixtures, schemas, templates, README and LICENSE; no maps, sources or tests', () => {
    const files = packed.files.map((file) => file.path).sort();
    for (const needed of ['LICENSE', 'README.md', 'package.json', 'bin/mockapi.mjs', 'dist/cli.js', 'dist/index.js', 'dist/index.d.ts', 'dist/index.cjs', 'dist/index.d.cts', 'dist/playwright.cjs', 'dist/playwright.d.cts', 'dist/graphiql/graphiql.min.js', 'dist/graphiql/LICENSES.txt', 'fixtures/users.json', 'schemas/mockapi-export.schema.json', 'templates/mockapi.config.ts', 'templates/e2e-setup.mjs', 'mockapi.config.example.ts', 'examples/invoices.json']) {
      expect(files).toContain(needed);
    }
    // Maps would point at src/*.ts, which is not shipped.
    expect(files.filter((file) => file.endsWith('.map'))).toEqual([]);
    expect(files.filter((file) => /^(src|test|bench|\.ci)\//.test(file) || file.startsWith('node_modules/'))).toEqual([]);
    expect(readFileSync(join(repoRoot, 'LICENSE'), 'utf8')).toMatch(/^MIT License\n\nCopyright \(c\) 2026 the mockapi authors\n/);
    expect(pkg.name).toBe('mockapi-sandbox');
    expect(pkg.bin).toEqual({ mockapi: 'bin/mockapi.mjs', 'mockapi-sandbox': 'bin/mockapi.mjs' });
    // Nothing of ours runs at install: the build happens when packing.
    expect(Object.keys(pkg.scripts)).not.toContain('prepare');
    expect(Object.keys(pkg.scripts)).not.toContain('install');
    expect(Object.keys(pkg.scripts)).not.toContain('postinstall');
    expect(pkg.scripts.prepack).toMatch(/npm run build/);
  });
});

describe('the packed package, installed into a fresh project', () => {
  it('without its native build says in one line to run npm rebuild, and with it serves a config importing mockapi-sandbox', async (context) => {
    if (notInstalled) return context.skip(notInstalled);
    const release = join(app, 'node_modules/better-sqlite3/build/Release');

    // Installed with --ignore-scripts: better-sqlite3 was never compiled.
    const unbuilt = await run(npm, ['exec', '--', 'mockapi', 'serve', '--port', '0', '--db', ':memory:'], app);
    expect(unbuilt.code).toBe(1);
    expect(ownLines(unbuilt.stderr)).toEqual(['mockapi: better-sqlite3 is not built (installed with --ignore-scripts?): run `npm rebuild better-sqlite3`']);

    // A binding that does not load (another Node's, another system's).
    mkdirSync(release, { recursive: true });
    writeFileSync(join(release, 'better_sqlite3.node'), 'not a shared object');
    const foreign = await run(npm, ['exec', '--', 'mockapi', 'serve', '--port', '0', '--db', ':memory:'], app);
    expect(foreign.code).toBe(1);
    expect(ownLines(foreign.stderr)).toEqual(['mockapi: better-sqlite3 was built for another Node.js or system and does not load: run `npm rebuild better-sqlite3`']);

    buildSqlite();

    for (const bin of ['mockapi-sandbox', 'mockapi']) {
      const help = await run(npm, ['exec', '--', bin, '--help'], app);
      expect(help.code, help.stderr).toBe(0);
      expect(help.stdout).toMatch(/Usage: mockapi/);
      expect(help.stdout).toMatch(/serve/);
    }

    writeFileSync(
      join(app, 'mockapi.config.ts'),
      "import { defineConfig } from 'mockapi-sandbox';\n\nexport default defineConfig({ db: ':memory:', limits: { maxPageSize: 7 } });\n",
    );
    // Its own process group: `kill` of npx reaches npx, not the server it started (the README says so).
    const server = spawn('npx', ['mockapi', 'serve', '--port', '0'], { cwd: app, env: offline, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise<number | null>((done) => server.once('exit', (code) => done(code)));
    let out = '';
    server.stdout.on('data', (chunk) => (out += chunk));
    server.stderr.on('data', (chunk) => (out += chunk));
    try {
      const url = await new Promise<string>((done, fail) => {
        server.stdout.on('data', () => {
          const match = /listening on (http:\/\/\S+)/.exec(out);
          if (match) done(match[1]);
        });
        server.once('exit', () => fail(new Error(`npx mockapi serve exited:\n${out}`)));
      });
      expect((await fetch(`${url}/health`)).status).toBe(200);
      // The config's limit applies: it was loaded, its import resolved to the installed package.
      expect((await fetch(`${url}/api/v1/users?limit=7`)).status).toBe(200);
      expect((await fetch(`${url}/api/v1/users?limit=8`)).status).toBe(400);
    } finally {
      process.kill(-server.pid!, 'SIGTERM');
      await exited;
    }
  }, 60_000);

  it("types compile in a consumer with skipLibCheck false and no @types/better-sqlite3", async (context) => {
    if (notInstalled) return context.skip(notInstalled);
    // A consumer has @types/node (the config is run by Node) and nothing else of ours.
    linkFromRepo('@types/node');
    writeFileSync(
      join(app, 'consumer.ts'),
      "import { defineConfig, type MockapiConfig } from 'mockapi-sandbox';\n\nconst limits: MockapiConfig['limits'] = { maxPageSize: 50 };\nexport default defineConfig({ port: 4010, limits });\n",
    );
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { strict: true, skipLibCheck: false, noEmit: true, module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', types: ['node'] }, files: ['consumer.ts'] }),
    );
    const tsc = await run(process.execPath, [join(repoRoot, 'node_modules/typescript/bin/tsc'), '-p', app], app);
    expect(tsc.stdout + tsc.stderr).toBe('');
    expect(tsc.code).toBe(0);
  }, 60_000);
});

/** The repo's already-built better-sqlite3 binding, in place of the install script's build. */
function buildSqlite() {
  const release = join(app, 'node_modules/better-sqlite3/build/Release');
  mkdirSync(release, { recursive: true });
  copyFileSync(join(repoRoot, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node'), join(release, 'better_sqlite3.node'));
}

/** A package of the repo's node_modules, linked into the project's (what `npm install -D` would add). */
function linkFromRepo(name: string) {
  const target = join(app, 'node_modules', name);
  if (existsSync(target)) return;
  mkdirSync(join(target, '..'), { recursive: true });
  symlinkSync(join(repoRoot, 'node_modules', name), target, 'dir');
}

/** A project folder inside the app (its node_modules found by walking up), without "type": "module". */
function commonJsProject(name: string, files: Record<string, string>): string {
  const dir = join(app, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, version: '1.0.0', private: true }));
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(join(dir, file, '..'), { recursive: true });
    writeFileSync(join(dir, file), text);
  }
  return dir;
}

const tsc = join(repoRoot, 'node_modules/typescript/bin/tsc');
const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

describe('the packed package from CommonJS', () => {
  it('require() and import() give the same createMockServer and defineConfig, and the server works from both', async (context) => {
    if (notInstalled) return context.skip(notInstalled);
    buildSqlite();
    const script = (load: string) => `
      ${load}
      const server = await main.createMockServer();
      const answer = await server.sandbox().fetch('/posts?limit=1');
      console.log(JSON.stringify({ main: Object.keys(main).sort(), playwright: Object.keys(playwright).sort(), status: answer.status, same: main.defineConfig({ port: 1 }).port }));
      await server.close();`;
    const dir = commonJsProject('cjs', {
      'required.cjs': `(async () => {${script("const main = require('mockapi-sandbox'); const playwright = require('mockapi-sandbox/playwright');")}})();`,
      'imported.mjs': script("const main = await import('mockapi-sandbox'); const playwright = await import('mockapi-sandbox/playwright');"),
    });
    linkFromRepo('@playwright/test');
    linkFromRepo('playwright');
    linkFromRepo('playwright-core');
    const required = await run(process.execPath, ['required.cjs'], dir);
    const imported = await run(process.execPath, ['imported.mjs'], dir);
    expect(required.stderr).toBe('');
    expect(imported.stderr).toBe('');
    const expected = { main: ['createMockServer', 'defineConfig'], playwright: ['expect', 'test'], status: 200, same: 1 };
    expect(JSON.parse(required.stdout)).toEqual(expected);
    expect(JSON.parse(imported.stdout)).toEqual(expected);
  }, 60_000);

  it('a Jest test (CommonJS, no transform, no flag) uses createMockServer', async (context) => {
    if (notInstalled) return context.skip(notInstalled);
    buildSqlite();
    const dir = commonJsProject('jest-project', {
      'posts.test.js': `const { createMockServer } = require('mockapi-sandbox');

let server;
beforeAll(async () => { server = await createMockServer(); });
afterAll(() => server.close());

test('creates a post', async () => {
  const sandbox = server.sandbox();
  const answer = await sandbox.fetch('/posts', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ user_id: 1, title: 'Hello', body: 'First post' }),
  });
  expect(answer.status).toBe(200);
  expect((await sandbox.export()).sandboxes[0].collections.posts.created).toHaveLength(1);
});
`,
    });
    const jest = await run(process.execPath, [join(repoRoot, 'node_modules/jest/bin/jest.js'), '--rootDir', dir, '--ci'], dir);
    expect(jest.stderr, jest.stdout).toMatch(/Tests:\s+1 passed, 1 total/);
    expect(jest.code).toBe(0);
  }, 90_000);

  it('a typed playwright.config.ts compiles (tsc, skipLibCheck false) and its spec runs in a CommonJS TypeScript project', async (context) => {
    if (notInstalled) return context.skip(notInstalled);
    buildSqlite();
    linkFromRepo('@types/node');
    linkFromRepo('@playwright/test');
    linkFromRepo('playwright');
    linkFromRepo('playwright-core');
    // The README's config and spec; the browser is the system's chromium (as root: --no-sandbox).
    const dir = commonJsProject('pw-project', {
      'playwright.config.ts': `import { defineConfig } from '@playwright/test';
import type { MockapiOptions } from 'mockapi-sandbox/playwright';

export default defineConfig<MockapiOptions>({
  testDir: './tests',
  fullyParallel: true,
  reporter: 'line',
  use: {
    mockapiOptions: { config: { limits: { createdPerCollection: 5 } } },
    launchOptions: { executablePath: ${JSON.stringify(chromium)}, args: ['--no-sandbox'] },
  },
});
`,
      'tests/posts.spec.ts': `import { expect, test } from 'mockapi-sandbox/playwright';

test('lists only my posts', async ({ page, request, mockapi }) => {
  await request.post(\`\${mockapi.api}/posts\`, { data: { user_id: 1, title: 'Mine', body: 'Hello' } });
  await page.goto(\`\${mockapi.api}/posts?title=Mine\`);
  await expect(page.locator('body')).toContainText('"title":"Mine"');
});
`,
    });
    // Every .d.ts checked once (slow: Playwright's are large); the other module settings check resolution and use.
    for (const [module, skipLibCheck] of [['nodenext', false], ['node16', true], ['commonjs', true]] as const) {
      const options = { strict: true, skipLibCheck, noEmit: true, module, target: 'ES2022', esModuleInterop: true, types: ['node'] };
      writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: options, include: ['playwright.config.ts', 'tests'] }));
      const typed = await run(process.execPath, [tsc, '-p', dir], dir);
      expect(typed.stdout + typed.stderr, module).toBe('');
      expect(typed.code).toBe(0);
    }
    if (!existsSync(chromium)) return context.skip(`no browser at ${chromium} (apt-get install chromium)`);
    const spec = await run(process.execPath, [join(repoRoot, 'node_modules/@playwright/test/cli.js'), 'test'], dir, { CI: '1' });
    expect(spec.stdout + spec.stderr).toMatch(/1 passed/);
    expect(spec.code).toBe(0);
  }, 240_000);
});
