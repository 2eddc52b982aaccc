import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, extname, isAbsolute, join, relative, resolve } from 'node:path';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Jiti } from 'jiti';
import type { MockapiConfig } from './config-schema.js';
import { configProblems } from './config-problems.js';
import { parseDuration } from './duration.js';

export type { MockapiConfig, RouteContext, RouteHandler } from './config-schema.js';

type Given<K extends keyof MockapiConfig> = NonNullable<MockapiConfig[K]>;
/** `T` with the duration keys `K` resolved to seconds. */
type InSeconds<T, K extends keyof T> = Omit<T, K> & { [P in K]: number };

/**
 * The config after defaults, file and flags are merged: every key present, durations in
 * seconds, paths absolute. Derived from the schema, so a new key shows up here too.
 */
export interface ResolvedConfig {
  port: number;
  host: string;
  db: string;
  fixtures: string;
  collections: Given<'collections'>;
  auth: InSeconds<Required<Omit<Given<'auth'>, 'secret'>>, 'accessTtl' | 'refreshTtl' | 'clockTolerance'> & { secret?: string };
  /** Counts and bytes; `sandboxTtl` in seconds (0 never expires); `sandboxBytes` 0 is no bound. */
  limits: InSeconds<Required<Given<'limits'>>, 'sandboxTtl'>;
  webhooks: Required<Omit<Given<'webhooks'>, 'allowHosts'>> & { allowHosts?: string[] };
  simulate: Given<'simulate'>;
  cors: Required<Given<'cors'>>;
  routes: Given<'routes'>;
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
    eventsPerSandbox: 1000,
    telemetryPerSandbox: 10_000,
    fileBytes: 10 * 1024 * 1024,
    sandboxFileBytes: 50 * 1024 * 1024,
    filesPerSandbox: 100,
  },
  auth: { password: 'password', accessTtl: '15m', refreshTtl: '7d', clockTolerance: 0, resetUrl: '/reset-password' },
  webhooks: { timeoutMs: 5000, attempts: 3, backoffMs: 1000 },
  cors: { origins: '*' },
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
  // c12 (and what it loads) costs a good part of a start: a folder without a config skips it.
  if (configFile === undefined && !mayHoldConfig(cwd)) return resolveFrom({}, flags, cwd, undefined);
  try {
    const { loadConfig } = await import('c12');
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
      jiti: fresh ? freshImporter(cwd, (await import('jiti')).createJiti) : undefined,
    });
    fileConfig = (loaded.config ?? {}) as MockapiConfig;
    configFile = loaded.configFile && existsSync(loaded.configFile) ? loaded.configFile : configFile;
  } catch (error) {
    throw loadError(error, cwd);
  }
  const resolved = resolveFrom(fileConfig, flags, configFile ? dirname(configFile) : cwd, configFile && shown(configFile, cwd));
  resolved.configFile = configFile;
  return resolved;
}

/** Whether c12 could find a config in `cwd`: a `mockapi.config.*` there, or a `.config` folder. */
function mayHoldConfig(cwd: string): boolean {
  try {
    return readdirSync(cwd).some((name) => name.startsWith('mockapi.config.') || name === '.config');
  } catch {
    return true;
  }
}

/**
 * One line for a config that does not load. A syntax error names the place as editors do
 * (`mockapi.config.ts:3:14: ...`, columns from 1): jiti words it `ParseError: <what>\n <file>:<line>:<column from 0>`,
 * and JSON.parse `<file>: <what> in JSON at position <n>`.
 */
function loadError(error: unknown, cwd: string): ConfigError {
  const message = error instanceof Error ? error.message : String(error);
  const parse = /^(?:\w*Error: )?([\s\S]*?)\s*\n\s*(\S.*?):(\d+):(\d+)\s*$/.exec(message);
  if (parse) return new ConfigError(`${shown(parse[2], cwd)}:${parse[3]}:${Number(parse[4]) + 1}: syntax error: ${oneLine(parse[1])}`);
  const json = /^(\S.*?\.json5?): ([\s\S]*?) in JSON at position (\d+)/.exec(message);
  if (json && existsSync(json[1])) {
    const before = readFileSync(json[1], 'utf8').slice(0, Number(json[3])).split('\n');
    return new ConfigError(`${shown(json[1], cwd)}:${before.length}:${before.at(-1)!.length + 1}: syntax error: ${oneLine(json[2])}`);
  }
  return new ConfigError(`cannot load config: ${message.split('\n')[0]}`);
}

/** A path as the user knows it: relative to where mockapi runs, unless it is elsewhere. */
function shown(file: string, cwd: string): string {
  const path = relative(cwd, file);
  return path && !path.startsWith('..') && !isAbsolute(path) ? path : file;
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}

/**
 * `mockapi-sandbox` (the published name) and `mockapi` (the older spelling) both resolve to this
 * package itself, whatever its package.json calls it and whether or not the folder installed it.
 */
const packageEntry = resolve(packageRoot, 'dist/index.js');
const jitiOptions = { alias: { 'mockapi-sandbox': packageEntry, mockapi: packageEntry } };
/** The bare specifiers above, as Node's ERR_MODULE_NOT_FOUND quotes them. */
const packageSpecifier = /'mockapi(?:-sandbox)?'/;
const require = createRequire(import.meta.url);
let generation = 0;

/**
 * What c12 imports config files with (it calls only `import`), minus the caches: jiti loads
 * `.json` and CommonJS through `require` (cached by path even with `moduleCache: false`), and
 * plain `.mjs`/`.js` through native `import()`, cached by URL for the life of the process.
 */
function freshImporter(cwd: string, createJiti: typeof import('jiti').createJiti): Jiti {
  const jiti = createJiti(join(cwd, 'mockapi.config'), { interopDefault: true, moduleCache: false, ...jitiOptions });
  const importFresh = async (file: string, options?: { default?: true }): Promise<unknown> => {
    delete require.cache[file];
    if (!['.mjs', '.cjs', '.js'].includes(extname(file))) return jiti.import(file, options);
    try {
      const module = (await import(`${pathToFileURL(file).href}?reload=${++generation}`)) as { default?: unknown };
      return options?.default ? (module.default ?? module) : module;
    } catch (error) {
      // Natively, `import 'mockapi-sandbox'` fails where the package is not installed; jiti maps it (and does not cache).
      if ((error as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND' && packageSpecifier.test((error as Error).message)) {
        return jiti.import(file, options);
      }
      throw error instanceof SyntaxError ? (syntaxErrorOf(jiti, file) ?? error) : error;
    }
  };
  return { ...jiti, import: importFresh } as Jiti;
}

/**
 * Node's SyntaxError has no line or column in its message. jiti's parser finds them, worded as
 * jiti words them on import; not through `jiti.import`, which may answer from Node's module
 * cache (the file as it was first loaded).
 */
function syntaxErrorOf(jiti: Jiti, file: string): Error | undefined {
  let code: string;
  try {
    code = jiti.transform({ source: readFileSync(file, 'utf8'), filename: file });
  } catch {
    return undefined;
  }
  const found = /__JITI_ERROR__ = (\{.*\})/.exec(code);
  if (!found) return undefined;
  const { line, column, message } = JSON.parse(found[1]) as { line: number; column: number; message: string };
  return new Error(`ParseError: ${message}\n ${file}:${line}:${column}`);
}

/**
 * Checks a config object against the schema and merges defaults, it and flags into the complete
 * config. Paths resolve against `baseDir`. Throws ConfigError naming the first problems.
 */
export function resolveConfig(file: MockapiConfig = {}, flags: ConfigFlags = {}, baseDir = process.cwd()): ResolvedConfig {
  return resolveFrom(file, flags, baseDir);
}

function resolveFrom(file: MockapiConfig, flags: ConfigFlags, baseDir: string, source?: string): ResolvedConfig {
  const problems = configProblems(file);
  if (problems.length) throw new ConfigError(problems.join('; '));
  const limits = { ...defaults.limits, ...file.limits };
  const auth = { ...defaults.auth, ...file.auth };
  const db = flags.db ?? file.db ?? defaults.db;
  const config: ResolvedConfig = {
    port: flags.port ?? file.port ?? defaults.port,
    host: flags.host ?? file.host ?? defaults.host,
    db: db === ':memory:' ? db : resolve(baseDir, db),
    fixtures: file.fixtures ? fixturesFolder(file.fixtures, baseDir, source) : packageFixtures,
    // `fixture` is relative to the config file, like `fixtures` and `db`.
    collections: Object.fromEntries(Object.entries(file.collections ?? {}).map(([name, c]) => [name, { ...c, fixture: resolve(baseDir, c.fixture) }])),
    auth: {
      secret: auth.secret,
      password: auth.password,
      accessTtl: seconds(auth.accessTtl),
      refreshTtl: seconds(auth.refreshTtl),
      required: flags.authRequired ?? auth.required ?? false,
      clockTolerance: seconds(auth.clockTolerance),
      resetUrl: auth.resetUrl,
      personas: auth.personas ?? {},
    },
    limits: { ...limits, sandboxTtl: seconds(limits.sandboxTtl) },
    webhooks: { ...defaults.webhooks, subscriptions: [], ...file.webhooks },
    simulate: { ...file.simulate, ...(flags.latency !== undefined ? { latency: flags.latency } : {}) },
    cors: { origins: file.cors?.origins ?? defaults.cors.origins },
    routes: file.routes ?? {},
  };
  return config;
}

/** A fixtures folder that is not there would serve an empty baseline without a word. */
function fixturesFolder(folder: string, baseDir: string, source: string | undefined): string {
  const path = resolve(baseDir, folder);
  if (!statSync(path, { throwIfNoEntry: false })?.isDirectory()) {
    throw new ConfigError(`fixtures folder not found: ${folder}${source ? ` (from ${source})` : ''}`);
  }
  return path;
}

/** A config problem: the CLI prints its message in one line and exits 1. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** A duration the schema has already checked, in seconds. */
function seconds(value: string | number): number {
  return parseDuration(value)!;
}
