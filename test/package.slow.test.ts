import { execFile, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from './helpers/server.js';

/**
 * The package as a user gets it: `npm pack` (as `npm publish` would), installed into a fresh
 * project, used through its bins and its types.
 *
 * The install is offline, from the npm cache that the repo's own `npm ci` filled: the project
 * gets a lockfile made from the repo's (the package's runtime dependencies at the versions the
 * repo tested, with the registry addresses npm needs to find them in the cache). It runs with
 * --ignore-scripts, as a user with strict `allowScripts` would, which leaves better-sqlite3
 * unbuilt: that is checked first, then the repo's already-built binding (the same version,
 * pinned by the lockfile) is copied in instead of compiling it again for a minute.
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

function run(file: string, args: string[], cwd: string): Promise<Run> {
  return new Promise((done) => {
    execFile(file, args, { cwd, env: offline, timeout: 60_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) =>
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

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('npm pack', () => {
  it('ships the CLI, its build, fixtures, schemas, templates, README and LICENSE; no maps, sources or tests', () => {
    const files = packed.files.map((file) => file.path).sort();
    for (const needed of ['LICENSE', 'README.md', 'package.json', 'bin/mockapi.mjs', 'dist/cli.js', 'dist/index.js', 'dist/index.d.ts', 'fixtures/users.json', 'schemas/mockapi-export.schema.json', 'templates/mockapi.config.ts', 'templates/e2e-setup.mjs', 'mockapi.config.example.ts']) {
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

    copyFileSync(join(repoRoot, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node'), join(release, 'better_sqlite3.node'));

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
    mkdirSync(join(app, 'node_modules/@types'), { recursive: true });
    symlinkSync(join(repoRoot, 'node_modules/@types/node'), join(app, 'node_modules/@types/node'), 'dir');
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
