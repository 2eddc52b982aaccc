import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { watch, type FSWatcher } from 'chokidar';
import type { ConsolaInstance } from 'consola';
import { loadMockapiConfig, type ConfigFlags, type ResolvedConfig } from '../config.js';
import type { Reconfigured, Runtime } from '../runtime.js';
import { fixtureFile } from '../engine/baseline.js';

/**
 * Editors save in bursts (truncate + write, or write a temp file and rename it over the old
 * one): changes closer together than this are one reload.
 */
const settleMs = 150;

export interface WatchOptions {
  /** The flags serve loaded the config with; they keep winning over the file on every reload. */
  flags: ConfigFlags;
  cwd?: string;
  log: ConsolaInstance;
}

export interface RuntimeWatcher {
  /** What is watched, for the start-up line. */
  describe(): string;
  close(): Promise<void>;
}

/**
 * `serve --watch`: reloads the baseline when a fixture file changes and the config when its file
 * changes (`runtime.reconfigure`, which swaps in a new runtime when the config's `collections` changed).
 * Like json-server's watcher it forgives: a broken file keeps the last good state and prints one
 * line, and no error of the watcher ever stops the server.
 */
export async function watchRuntime(runtime: Runtime, options: WatchOptions): Promise<RuntimeWatcher | undefined> {
  try {
    return await startWatching(runtime, options);
  } catch (error) {
    // Like listhen: a watcher that cannot start is a warning, the server itself still works.
    process.stderr.write(`mockapi: ${oneLine(`cannot watch, serving without --watch: ${(error as Error).message}`)}\n`);
    return undefined;
  }
}

async function startWatching(first: Runtime, options: WatchOptions): Promise<RuntimeWatcher> {
  const { flags, log } = options;
  const cwd = options.cwd ?? process.cwd();
  // The runtime served now, and what is read from it; all four change when `collections` swaps it.
  let runtime = first;
  let config = runtime.config;
  let collections = runtime.engine.collections;
  let names = collections.map((c) => c.name);
  /**
   * The fixture files of a config whose collections could not be served (a broken new fixture):
   * an edit of one of them tries that config again.
   */
  let retryFiles = new Set<string>();
  /** Each collection's file: `<fixtures>/<name>.json`, or a config-declared collection's own `fixture`. */
  const fileOf = (name: string) => fixtureFile(config.fixtures, collections.find((c) => c.name === name)!);
  /** `users.json` in the fixtures folder; a declared collection's file by its full path. */
  const shownFile = (name: string) => (fileOf(name) === join(config.fixtures, `${name}.json`) ? `${name}.json` : fileOf(name));
  let lastGood = snapshotFixtures(names, fileOf);
  /** Whether the last fixture reload failed (and said so on stderr). */
  let failing = false;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let running = false;
  const pending = { fixtures: false, config: false };
  const watchErrors = new Set<string>();

  const fail = (line: string) => process.stderr.write(`mockapi: ${oneLine(line)}\n`);
  const fixtureFiles = () => new Set([...names.map(fileOf), ...retryFiles]);
  const folders = () => new Set([config.fixtures, ...[...fixtureFiles()].map((file) => dirname(file)), ...(config.configFile ? [dirname(config.configFile)] : [])]);

  // Each folder is watched at depth 0 and everything but the fixture files and the config file
  // is ignored: the database, its -wal/-shm files and `.mockapi/` change on every write.
  const ignored = (path: string) => {
    const full = resolve(path);
    if (full === config.db || full.startsWith(`${config.db}-`) || basename(full) === '.mockapi') return true;
    return !(folders().has(full) || fixtureFiles().has(full) || full === config.configFile);
  };
  const onChange = (_event: string, path: string) => {
    const full = resolve(path);
    let seen = false;
    if (full === config.configFile || retryFiles.has(full)) seen = pending.config = true;
    if (names.some((name) => fileOf(name) === full)) seen = pending.fixtures = true;
    if (!seen) return;
    schedule();
  };
  /** A watcher over the current folders, once it sees changes. */
  let watchedFolders = '';
  const open = async (): Promise<FSWatcher> => {
    watchedFolders = [...folders()].sort().join('\0');
    const opened = watch([...folders()], { ignoreInitial: true, depth: 0, ignored, atomic: true });
    opened.on('error', (error) => {
      // One line per distinct problem: an exhausted inotify limit would otherwise repeat forever.
      const line = `watching failed: ${(error as Error).message}`;
      if (!watchErrors.has(line)) fail(line);
      watchErrors.add(line);
    });
    opened.on('all', onChange);
    await new Promise<void>((ready) => opened.once('ready', ready));
    return opened;
  };
  let watcher = await open();

  function schedule(): void {
    clearTimeout(timer);
    if (!closed) timer = setTimeout(() => void flush(), settleMs);
  }

  /** One reload at a time; changes that arrive meanwhile are picked up by the next round. */
  async function flush(): Promise<void> {
    if (running || closed) return;
    running = true;
    try {
      let fixtures = pending.fixtures;
      const reloadConfigFile = pending.config;
      pending.fixtures = pending.config = false;
      if (reloadConfigFile && (await reloadConfig())) fixtures = true;
      if (fixtures && !closed) reloadFixtures();
    } catch (error) {
      fail(`reload failed: ${(error as Error).message}`);
    } finally {
      running = false;
      if (pending.fixtures || pending.config) schedule();
    }
  }

  function reloadFixtures(): void {
    // A file that vanished is more likely a checkout or a save in progress than a wish for an
    // empty collection (`[]` says that), so it keeps the baseline like a broken file does.
    const gone = names.filter((name) => lastGood.has(name) && !existsSync(fileOf(name)));
    if (gone.length) {
      failing = true;
      fail(`fixtures not reloaded, still serving the last good ones: ${gone.map(shownFile).join(', ')} missing in ${config.fixtures}`);
      return;
    }
    let changed: boolean;
    try {
      changed = runtime.reloadBaseline();
    } catch (error) {
      failing = true;
      fail(`fixtures not reloaded, still serving the last good ones: ${(error as Error).message}`);
      return;
    }
    const next = snapshotFixtures(names, fileOf);
    const differ = names.filter((name) => next.get(name)?.hash !== lastGood.get(name)?.hash);
    lastGood = next;
    // After an error line, the fix gets a line too, even when it restored the last good content
    // (then nothing changed, and silence would leave the error as the last word).
    const fixed = failing;
    failing = false;
    if (changed) log.success(`reloaded fixtures: ${describeReload(next, differ)}${fixed ? '; every fixture loads again' : ''}`);
    else if (fixed) log.success('fixtures load again; the baseline is unchanged');
  }

  /**
   * Applies a changed config file through `runtime.reconfigure`; returns whether the fixtures must
   * be loaded again (a new folder, or a new runtime for a new `collections` key: stores, search
   * statements and the GraphQL schema are built from the definitions; it uses the same database,
   * so sandboxes keep their writes).
   */
  async function reloadConfig(): Promise<boolean> {
    let next: ResolvedConfig;
    try {
      next = await loadMockapiConfig({ ...flags, config: config.configFile ?? flags.config }, cwd, { fresh: true });
    } catch (error) {
      fail(`config not reloaded, keeping the last good one: ${(error as Error).message}`);
      return false;
    }
    if (closed) return false;
    const file = relative(cwd, config.configFile ?? '') || basename(config.configFile ?? '');
    const changes = describeCollectionChanges(config.collections, next.collections);
    let reconfigured: Reconfigured;
    try {
      reconfigured = await runtime.reconfigure(next);
    } catch (error) {
      // The new collections could not be served. Their fixtures stay watched (the new declared
      // ones too): fixing the broken one tries this config again.
      retryFiles = new Set([...names.map(fileOf), ...Object.values(next.collections).map((c) => c.fixture)]);
      await rewatch();
      fail(`config not reloaded, keeping the last good one: ${(error as Error).message}`);
      return false;
    }
    const { restart } = reconfigured;
    const rebuilt = changes !== '' && !restart.includes('collections');
    const moved = reconfigured.runtime.config.fixtures !== config.fixtures;
    runtime = reconfigured.runtime;
    config = runtime.config;
    collections = runtime.engine.collections;
    names = collections.map((c) => c.name);
    retryFiles = new Set();
    if (rebuilt || moved) lastGood = new Map();
    if (rebuilt) failing = false;
    // A new folder (or a new collection's fixture in one) is watched before the caller reloads
    // the fixtures, so an edit made meanwhile is not lost.
    await rewatch();
    if (rebuilt) {
      // Each runtime opens its own connection: an in-memory database is a new, empty one.
      const memory = config.db === ':memory:' ? '; --db :memory: started over with an empty database' : '';
      log.success(`reloaded config ${file} (collections: ${changes})${memory}`);
    } else {
      log.success(`reloaded config ${file}${moved ? ` (fixtures now from ${config.fixtures})` : ''}`);
    }
    warnRestart(restart, file);
    return rebuilt || moved;
  }

  /** A new watcher when the watched folders changed (chokidar's add() has no second 'ready'). */
  async function rewatch(): Promise<void> {
    const wanted = [...folders()].sort().join('\0');
    if (wanted === watchedFolders) return;
    await watcher.close();
    watcher = await open();
    if (closed) await watcher.close();
  }

  function warnRestart(fixed: string[], file: string): void {
    if (fixed.length) fail(`${fixed.join(', ')} changed in ${file}: restart mockapi to apply ${fixed.length > 1 ? 'them' : 'it'}`);
  }

  return {
    describe: () => [config.fixtures, config.configFile].filter(Boolean).join(' and '),
    close: async () => {
      closed = true;
      clearTimeout(timer);
      await watcher.close();
    },
  };
}

interface FixtureSnapshot {
  hash: string;
  records: number;
}

/** What each fixture file held at the last good load, to name the collections that changed. */
function snapshotFixtures(names: string[], fileOf: (name: string) => string): Map<string, FixtureSnapshot> {
  const files = new Map<string, FixtureSnapshot>();
  for (const name of names) {
    const file = fileOf(name);
    if (!existsSync(file)) continue;
    try {
      const text = readFileSync(file, 'utf8');
      const parsed: unknown = JSON.parse(text);
      files.set(name, { hash: createHash('sha256').update(text).digest('hex'), records: Array.isArray(parsed) ? parsed.length : 0 });
    } catch {
      // Changed again since the load: the next change event reloads and snapshots it.
    }
  }
  return files;
}

/**
 * `users (25 records)` per changed file; `all (825 records)` when the baseline changed although
 * no file differs from the last good load (a folder reloaded as a whole).
 */
function describeReload(files: Map<string, FixtureSnapshot>, changed: string[]): string {
  const count = (records: number) => `${records} record${records === 1 ? '' : 's'}`;
  if (!changed.length) return `all (${count([...files.values()].reduce((sum, file) => sum + file.records, 0))})`;
  return changed.map((name) => `${name} (${count(files.get(name)?.records ?? 0)})`).join(', ');
}

/** `invoices added, receipts removed, notes changed`; empty when the definitions are the same. */
function describeCollectionChanges(before: ResolvedConfig['collections'], after: ResolvedConfig['collections']): string {
  const changes: string[] = [];
  for (const name of Object.keys(after)) if (!(name in before)) changes.push(`${name} added`);
  for (const name of Object.keys(before)) if (!(name in after)) changes.push(`${name} removed`);
  for (const name of Object.keys(after)) {
    if (name in before && JSON.stringify(before[name]) !== JSON.stringify(after[name])) changes.push(`${name} changed`);
  }
  // Only the order differs: collections are built in config order (the baseline's hash includes it), as on a restart.
  if (!changes.length && JSON.stringify(before) !== JSON.stringify(after)) changes.push('reordered');
  return changes.join(', ');
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}
