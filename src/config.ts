import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, extname, join, resolve } from 'node:path';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadConfig } from 'c12';
import { createJiti, type Jiti } from 'jiti';
import { parseDuration } from './duration.js';

/** What a user may write in `mockapi.config.ts`: every key optional (contract section 2). */
export interface MockapiConfig {
  port?: number;
  host?: string;
  /** SQLite file; `:memory:` keeps nothing. */
  db?: string;
  /** Folder holding `<collection>.json` baseline files. */
  fixtures?: string;
  /** Extra baseline collections (a later layer; accepted and kept now). */
  collections?: Record<string, unknown>;
  auth?: {
    secret?: string;
    password?: string;
    accessTtl?: string | number;
    refreshTtl?: string | number;
    required?: boolean;
    clockTolerance?: string | number;
    personas?: Record<string, unknown>;
  };
  limits?: {
    createdPerCollection?: number;
    maxPageSize?: number;
    bodyBytes?: number;
    customCollections?: number;
    customRecords?: number;
    sandboxTtl?: string | number;
    maxSandboxes?: number;
    activity?: number;
    sandboxBytes?: number;
  };
  webhooks?: {
    timeoutMs?: number;
    attempts?: number;
    backoffMs?: number;
    allowHosts?: string[];
    subscriptions?: unknown[];
  };
  simulate?: {
    latency?: string | number;
    rateLimit?: string;
  };
  routes?: Record<string, unknown>;
}

/** The config after defaults, file and flags are merged: every key present. */
export interface ResolvedConfig {
  port: number;
  host: string;
  db: string;
  fixtures: string;
  collections: Record<string, unknown>;
  auth: {
    secret?: string;
    password: string;
    accessTtl: number;
    refreshTtl: number;
    required: boolean;
    clockTolerance: number;
    personas: Record<string, unknown>;
  };
  limits: {
    createdPerCollection: number;
    maxPageSize: number;
    bodyBytes: number;
    customCollections: number;
    customRecords: number;
    /** Seconds; 0 never expires. */
    sandboxTtl: number;
    maxSandboxes: number;
    activity: number;
    /** UTF-8 bytes of record JSON a sandbox may store, overlay and snapshots; 0 no bound. */
    sandboxBytes: number;
  };
  webhooks: {
    timeoutMs: number;
    attempts: number;
    backoffMs: number;
    allowHosts?: string[];
    subscriptions: unknown[];
  };
  simulate: {
    latency?: string | number;
    rateLimit?: string;
  };
  routes: Record<string, unknown>;
  /** The config file that was loaded, if any. */
  configFile?: string;
}

/** Typed identity helper for config files: `export default defineConfig({...})`. */
export function defineConfig(config: MockapiConfig): MockapiConfig {
  return config;
}

const packageRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The package's own baseline, used when the config names no `fixtures` folder. */
export const packageFixtures = resolve(packageRoot, 'fixtures');

export const defaults = {
  port: 4010,
  host: '127.0.0.1',
  db: '.mockapi/mockapi.db',
  limits: {
    createdPerCollection: 30,
    maxPageSize: 200,
    bodyBytes: 1024 * 1024,
    customCollections: 20,
    customRecords: 1000,
    sandboxTtl: '7d',
    maxSandboxes: 10_000,
    activity: 100,
    sandboxBytes: 8 * 1024 * 1024,
  },
  auth: { password: 'password', accessTtl: '15m', refreshTtl: '7d', clockTolerance: 0 },
  webhooks: { timeoutMs: 5000, attempts: 3, backoffMs: 1000 },
} as const;

/** Flags given on the command line; they win over the file. */
export interface ConfigFlags {
  config?: string;
  port?: number;
  host?: string;
  db?: string;
  authRequired?: boolean;
  latency?: string;
}

/**
 * Loads `mockapi.config.{ts,mjs,js,json}` from `cwd` (or the file named by `--config`) with c12,
 * resolves the `mockapi` import to this package so a config works under `npx`, and merges flags.
 */
export async function loadMockapiConfig(flags: ConfigFlags = {}, cwd = process.cwd(), { fresh = false } = {}): Promise<ResolvedConfig> {
  let fileConfig: MockapiConfig = {};
  let configFile: string | undefined;
  if (flags.config !== undefined) {
    configFile = resolve(cwd, flags.config);
    if (!existsSync(configFile)) throw new ConfigError(`config file not found: ${flags.config}`);
  }
  try {
    const loaded = await loadConfig<MockapiConfig>({
      name: 'mockapi',
      cwd,
      configFile: configFile ?? 'mockapi.config',
      rcFile: false,
      globalRc: false,
      dotenv: false,
      packageJson: false,
      giget: false,
      extend: false,
      jitiOptions,
      // A reload (`--watch`) must see the file as it is now, past every module cache.
      jiti: fresh ? freshImporter(cwd) : undefined,
    });
    fileConfig = (loaded.config ?? {}) as MockapiConfig;
    configFile = loaded.configFile && existsSync(loaded.configFile) ? loaded.configFile : configFile;
  } catch (error) {
    throw new ConfigError(`cannot load config: ${(error as Error).message.split('\n')[0]}`);
  }
  const resolved = resolveConfig(fileConfig, flags, configFile ? dirname(configFile) : cwd);
  resolved.configFile = configFile;
  return resolved;
}

const jitiOptions = { alias: { mockapi: resolve(packageRoot, 'dist/index.js') } };
const require = createRequire(import.meta.url);
let generation = 0;

/**
 * What c12 imports config files with (it calls only `import`), minus the caches: jiti loads
 * `.json` and CommonJS through `require` (cached by path even with `moduleCache: false`), and
 * plain `.mjs`/`.js` through native `import()`, cached by URL for the life of the process.
 */
function freshImporter(cwd: string): Jiti {
  const jiti = createJiti(join(cwd, 'mockapi.config'), { interopDefault: true, moduleCache: false, ...jitiOptions });
  const importFresh = async (file: string, options?: { default?: true }): Promise<unknown> => {
    delete require.cache[file];
    if (!['.mjs', '.cjs', '.js'].includes(extname(file))) return jiti.import(file, options);
    try {
      const module = (await import(`${pathToFileURL(file).href}?reload=${++generation}`)) as { default?: unknown };
      return options?.default ? (module.default ?? module) : module;
    } catch (error) {
      // Natively, `import 'mockapi'` fails where the package is not installed; jiti maps it (and does not cache).
      if ((error as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND' && /'mockapi'/.test((error as Error).message)) {
        return jiti.import(file, options);
      }
      throw error;
    }
  };
  return { ...jiti, import: importFresh } as Jiti;
}

/** Merges defaults, a config object and flags into the complete config. Paths resolve against `baseDir`. */
export function resolveConfig(file: MockapiConfig = {}, flags: ConfigFlags = {}, baseDir = process.cwd()): ResolvedConfig {
  const limits = { ...defaults.limits, ...file.limits };
  const auth = { ...defaults.auth, ...file.auth };
  const db = flags.db ?? file.db ?? defaults.db;
  const config: ResolvedConfig = {
    port: flags.port ?? file.port ?? defaults.port,
    host: flags.host ?? file.host ?? defaults.host,
    db: db === ':memory:' ? db : resolve(baseDir, db),
    fixtures: file.fixtures ? resolve(baseDir, file.fixtures) : packageFixtures,
    collections: file.collections ?? {},
    auth: {
      secret: auth.secret,
      password: auth.password,
      accessTtl: seconds(auth.accessTtl, 'auth.accessTtl'),
      refreshTtl: seconds(auth.refreshTtl, 'auth.refreshTtl'),
      required: flags.authRequired ?? auth.required ?? false,
      clockTolerance: seconds(auth.clockTolerance, 'auth.clockTolerance'),
      personas: auth.personas ?? {},
    },
    limits: {
      createdPerCollection: count(limits.createdPerCollection, 'limits.createdPerCollection'),
      maxPageSize: count(limits.maxPageSize, 'limits.maxPageSize'),
      bodyBytes: count(limits.bodyBytes, 'limits.bodyBytes'),
      customCollections: count(limits.customCollections, 'limits.customCollections'),
      customRecords: count(limits.customRecords, 'limits.customRecords'),
      sandboxTtl: seconds(limits.sandboxTtl, 'limits.sandboxTtl'),
      maxSandboxes: count(limits.maxSandboxes, 'limits.maxSandboxes'),
      activity: count(limits.activity, 'limits.activity'),
      sandboxBytes: count(limits.sandboxBytes, 'limits.sandboxBytes'),
    },
    webhooks: { ...defaults.webhooks, subscriptions: [], ...file.webhooks },
    simulate: { ...file.simulate, ...(flags.latency !== undefined ? { latency: flags.latency } : {}) },
    routes: file.routes ?? {},
  };
  if (!Number.isInteger(config.port) || config.port < 0 || config.port > 65535) {
    throw new ConfigError(`port must be an integer from 0 to 65535, got ${String(config.port)}`);
  }
  return config;
}

/** A config problem: the CLI prints its message in one line and exits 1. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

function seconds(value: string | number, key: string): number {
  const parsed = parseDuration(value);
  if (parsed === undefined) throw new ConfigError(`${key} must be seconds or a duration such as "30m", got ${JSON.stringify(value)}`);
  return parsed;
}

function count(value: number, key: string): number {
  if (!Number.isInteger(value) || value < 0) throw new ConfigError(`${key} must be a whole number, got ${JSON.stringify(value)}`);
  return value;
}
