import { randomBytes } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { listenApp } from './_listen.js';
import { identityCookie } from './auth/identity.js';
import { isSandboxId } from './auth/sandbox-id.js';
import { loadMockapiConfig, resolveConfig, type ConfigFlags, type MockapiConfig, type ResolvedConfig } from './config.js';
import { createRuntime } from './runtime.js';

// Public types only: no better-sqlite3 or h3 type may appear in this file's exported signatures,
// so the published .d.ts compiles for a consumer that has neither's types (issue 18).

export interface MockServerOptions {
  /** SQLite file; default `:memory:` (nothing kept). A config's own `db` is not used. */
  db?: string;
  /** Default 0: any free port. A config's own `port` is not used. */
  port?: number;
  /** Default `127.0.0.1`. A config's own `host` is not used. */
  host?: string;
  /** Folder of `<collection>.json` baseline files; default: the config's, else the package's own. */
  fixtures?: string;
  /** A config object (as in `mockapi.config.ts`) or the path of a config file; no file is read unless given. */
  config?: MockapiConfig | string;
}

/**
 * The option of the Playwright fixture (`mockapi-sandbox/playwright`): the server each worker
 * starts. Type the config with it: `defineConfig<MockapiOptions>({ use: { mockapiOptions: {...} } })`.
 */
export interface MockapiOptions {
  mockapiOptions: MockServerOptions;
}

export interface MockServer {
  /** The server root, no trailing slash: `http://127.0.0.1:43567`. The API is under `${url}/api/v1`. */
  url: string;
  /** A handle on one sandbox: `id` when given (1-128 chars of A-Z a-z 0-9 _ -, else it throws), else a fresh random one. */
  sandbox(id?: string): MockSandbox;
  /** Stops the server; resolves once the port and the database are released. */
  close(): Promise<void>;
}

export interface MockSandbox {
  id: string;
  /** A request under `/api/v1` in this sandbox: `fetch('/posts?limit=5')`. Headers in `init` are kept. */
  fetch(path: string, init?: RequestInit): Promise<Response>;
  /** `POST /api/v1/sandbox/reset`; throws on a non-2xx answer. */
  reset(): Promise<SandboxResetAnswer>;
  /** `GET /api/v1/sandbox/export`; throws on a non-2xx answer. */
  export(): Promise<SandboxExport>;
}

export interface SandboxResetAnswer {
  message: string;
  sandbox: string;
  /** Rows purged per collection. */
  purged: Record<string, number>;
}

/** The export document (contract section 12); over HTTP it holds the caller's sandbox only. */
export interface SandboxExport {
  format: 'mockapi-export';
  version: number;
  exportedAt: string;
  sandboxes: Array<{
    id: string;
    createdAt: string | null;
    lastActiveAt: string | null;
    collections: Record<string, { created: unknown[]; updated: unknown[]; deleted: Array<number | string> }>;
    snapshots?: unknown[];
    /** Webhook subscriptions, secrets included; present when the sandbox has any. */
    webhooks?: unknown[];
  }>;
}

/** In-flight requests get this long to finish on `close()` before their connections are cut. */
const closeGraceMs = 2_000;

/**
 * An in-process mock server for test suites (contract section 18): its own runtime and HTTP
 * listener, no output, no signal handlers, so several can run in one process.
 */
export async function createMockServer(options: MockServerOptions = {}): Promise<MockServer> {
  const config = await mockServerConfig(options);
  const { url, close } = await listenApp(await createRuntime(config), config.port, config.host, closeGraceMs);
  return { url, sandbox: (id) => bindSandbox(url, id), close };
}

/** Options to config: the options' db, port and host always win (a test server must not take the CLI's port or file). */
async function mockServerConfig(options: MockServerOptions): Promise<ResolvedConfig> {
  const cwd = process.cwd();
  const db = options.db ?? ':memory:';
  const flags: ConfigFlags = {
    port: options.port ?? 0,
    host: options.host ?? '127.0.0.1',
    db: db === ':memory:' ? db : resolve(cwd, db),
  };
  const fixtures = options.fixtures === undefined ? undefined : resolve(cwd, options.fixtures);
  if (fixtures !== undefined && !(existsSync(fixtures) && statSync(fixtures).isDirectory())) {
    throw new Error(`mockapi: fixtures folder not found: ${fixtures}`);
  }
  if (typeof options.config === 'string') {
    const config = await loadMockapiConfig({ ...flags, config: options.config }, cwd);
    if (fixtures !== undefined) config.fixtures = fixtures;
    return config;
  }
  const file = options.config ?? {};
  return resolveConfig(fixtures === undefined ? file : { ...file, fixtures }, flags, cwd);
}

/** A handle on sandbox `id` (a fresh random one when absent) of the server at `url`; also used by the Playwright fixture. */
export function bindSandbox(url: string, id: string = randomBytes(16).toString('base64url')): MockSandbox {
  if (typeof id !== 'string' || !isSandboxId(id)) {
    throw new TypeError(`mockapi: sandbox id ${JSON.stringify(id)} is invalid: use 1-128 characters of A-Z a-z 0-9 _ -`);
  }
  const api = `${url}/api/v1`;
  const request = async (path: string, init: RequestInit = {}): Promise<Response> => {
    if (typeof path !== 'string' || !path.startsWith('/')) {
      throw new TypeError(`mockapi: sandbox.fetch takes a path under /api/v1 starting with "/", got ${JSON.stringify(path)}`);
    }
    const headers = new Headers(init.headers);
    // First, so it wins over an svc_identity the caller's own cookie header might carry.
    const cookie = headers.get('cookie');
    headers.set('cookie', `${identityCookie}=${id}${cookie ? `; ${cookie}` : ''}`);
    return fetch(`${api}${path}`, { ...init, headers });
  };
  const json = async <T>(method: string, path: string): Promise<T> => {
    const response = await request(path, { method });
    const text = await response.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    if (!response.ok) {
      const problem = (body ?? {}) as { detail?: unknown; code?: unknown };
      const reason = typeof problem.detail === 'string' ? problem.detail : text.slice(0, 200) || response.statusText;
      const code = typeof problem.code === 'string' ? ` ${problem.code}` : '';
      throw new Error(`mockapi: ${method} /api/v1${path} answered ${response.status}${code}: ${reason}`);
    }
    if (body === undefined) throw new Error(`mockapi: ${method} /api/v1${path} answered ${response.status} without JSON`);
    return body as T;
  };
  return {
    id,
    fetch: request,
    reset: () => json<SandboxResetAnswer>('POST', '/sandbox/reset'),
    export: () => json<SandboxExport>('GET', '/sandbox/export'),
  };
}
