import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Command, InvalidArgumentError, Option } from 'commander';
import type { ConsolaInstance } from 'consola';
import type { ConfigFlags } from '../config.js';
import type { LiveRuntime } from './_live-runtime.js';
import type { RuntimeWatcher } from './_watch.js';
import { parseLatency } from '../simulate/latency.js';
import { commandLog } from './_log.js';

/** Open connections (a server-sent event stream never finishes) are cut after this on shutdown. */
const shutdownGraceMs = 5_000;

interface ServeOptions {
  config?: string;
  port?: number;
  host?: string;
  db?: string;
  watch?: boolean;
  authRequired?: boolean;
  latency?: string;
}

/** `mockapi serve`: loads config and fixtures, opens the SQLite file, serves HTTP until a signal. */
export function makeServeCommand(): Command {
  return new Command('serve')
    .description('serve the mock API over HTTP')
    .option('--config <file>', 'config file (default: mockapi.config.{ts,mjs,js,json} in the current folder)')
    .addOption(new Option('--port <n>', 'port to listen on, 0 for any free port (default: config, else 4010)').argParser(parsePort))
    .addOption(new Option('--host <h>', 'host to listen on (default: config, else 127.0.0.1)').argParser(parseHost))
    .addOption(
      new Option('--db <file>', 'SQLite file, ":memory:" keeps nothing (default: config, else .mockapi/mockapi.db)').argParser(parseDb),
    )
    .option('--watch', 'reload the fixtures and the config file when they change (port, host and db need a restart)')
    .option('--auth-required', 'requests without a token act as guest: they may read the core collections and log in, nothing else')
    .addOption(
      new Option('--latency <ms>', 'delay every API answer: milliseconds, "1s", or a random range "100-400" (at most 30 s)').argParser(
        parseLatencyFlag,
      ),
    )
    .action(async (options: ServeOptions) => {
      await serve(options);
    });
}

async function serve(options: ServeOptions): Promise<void> {
  const flags: ConfigFlags = {
    config: options.config,
    port: options.port,
    host: options.host,
    db: options.db,
    authRequired: options.authRequired,
    latency: options.latency,
  };
  // Loaded here, not with the command line: `mockapi --help` and the other commands never need them.
  const [{ loadMockapiConfig }, { parseSimulationConfig }, { createRuntime }, { noFixtureWarning }, { liveRuntime }, { listenHttp, closeHttp }, { colors }, log] = await Promise.all([
    import('../config.js'),
    import('../simulate/simulate.js'),
    import('../runtime.js'),
    import('../engine/baseline.js'),
    import('./_live-runtime.js'),
    import('../_listen.js'),
    import('consola/utils'),
    commandLog('stdout'),
  ]);
  const config = await loadMockapiConfig(flags);
  // The schema checks the syntax; the bounds (30 s at most) are checked here, before anything opens.
  parseSimulationConfig(config);
  const { port, host } = config;
  if (!isValidHost(host)) throw new Error(`host ${JSON.stringify(host)} is not a hostname or IP address`);

  // Checked before the database is opened, so a busy port fails fast and touches nothing.
  const probe = await probePort(port, host);
  if (probe) throw toListenError(probe, port, host);

  // Under --watch, a new `collections` key is served by a new runtime and app (`live`).
  const runtime = await createRuntime(config, { rebuild: (next) => live.replace(next) });
  const noFixture = noFixtureWarning(config.fixtures, runtime.engine.collections);
  if (noFixture) log.warn(noFixture);
  let server: Server;
  let live: LiveRuntime;
  try {
    // Requests go through one indirection, so --watch can swap in a new runtime and app.
    live = liveRuntime(runtime);
    // A fixed port is that port or a failure; 0 asks the system for any free one.
    server = await listenHttp(live.handler, port, host);
  } catch (error) {
    runtime.close();
    throw toListenError(error, port, host);
  }
  const actual = (server.address() as AddressInfo).port;
  server.on('error', (error) => {
    process.stderr.write(`mockapi: server error: ${error.message}\n`);
    process.exit(1);
  });
  // Ready before the URL is printed, so a change made by whoever waits for the URL is seen.
  const watcher = options.watch ? await (await import('./_watch.js')).watchRuntime(runtime, { flags, log }) : undefined;
  stopOnSignals(() => closeHttp(server, shutdownGraceMs), live, log, watcher);

  const url = `http://${urlHost(host)}:${actual}`;
  // One write, so a reader that waits for the URL gets the whole block.
  log.success(
    [
      `mockapi listening on ${url}${isAnyHost(host) ? ' (all interfaces)' : ''}`,
      colors.dim(`  API     ${url}/api/v1`),
      colors.dim(`  Health  ${url}/health`),
    ].join('\n'),
  );
  if (watcher) log.info(`watching ${watcher.describe()}`);
}

/** SIGINT/SIGTERM: stop accepting, let in-flight requests finish, close the database, exit 0. A second signal forces exit 1. */
function stopOnSignals(closeServer: () => Promise<void>, live: LiveRuntime, log: ConsolaInstance, watcher?: RuntimeWatcher): void {
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      process.stderr.write(`mockapi: ${signal} again, exiting without waiting for open requests\n`);
      process.exit(1);
    }
    stopping = true;
    log.info(`${signal} received: finishing open requests and stopping`);
    // Closed first: a reload must not start on a database that is about to close.
    void watcher?.close().catch(() => undefined);
    live.current.streams.closeAll();
    closeServer()
      .then(() => {
        live.close();
        process.exit(0);
      })
      .catch((error: unknown) => {
        process.stderr.write(`mockapi: shutdown failed: ${(error as Error).message}\n`);
        process.exit(1);
      });
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

/** Binds the port once and lets it go, to name the exact problem (busy, forbidden, unknown host). */
async function probePort(port: number, host: string): Promise<NodeJS.ErrnoException | undefined> {
  const { createServer } = await import('node:net');
  return new Promise((done) => {
    const server = createServer();
    server.unref();
    server.once('error', (error: NodeJS.ErrnoException) => done(error));
    server.listen({ port, host, exclusive: true }, () => server.close(() => done(undefined)));
  });
}

function toListenError(error: unknown, port: number, host: string): Error {
  const { code, message } = error as NodeJS.ErrnoException;
  if (code === 'EADDRINUSE') {
    return new Error(`port ${port} on ${host} is already in use (try --port 0 for any free port)`);
  }
  if (code === 'EACCES') return new Error(`no permission to listen on port ${port} on ${host} (try a port above 1023, or --port 0)`);
  if (code === 'EADDRNOTAVAIL') return new Error(`cannot listen on ${host}: the address is not on this machine`);
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return new Error(`cannot listen on ${host}: unknown host`);
  return new Error(`cannot listen on ${host}:${port}: ${message}`);
}

function parsePort(value: string): number {
  if (!/^\d{1,5}$/.test(value) || Number(value) > 65535) throw new InvalidArgumentError('Expected an integer from 0 to 65535.');
  return Number(value);
}

function parseLatencyFlag(value: string): string {
  try {
    parseLatency(value, '--latency');
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message.replace(/^--latency must be /, 'Expected ').replace(/; got .*$/, '.'));
  }
  return value;
}

function parseHost(value: string): string {
  if (!isValidHost(value)) throw new InvalidArgumentError('Expected a hostname or an IP address.');
  return value;
}

function parseDb(value: string): string {
  if (value.trim() === '') throw new InvalidArgumentError('Expected a file path or ":memory:".');
  return value;
}

// Letters, digits, dots, colons and dashes: a name or an IPv4/IPv6 address, never a URL or a path.
function isValidHost(host: string): boolean {
  return /^(?!-)[\d.:A-Za-z-]{1,63}(?<!-)$/.test(host);
}

function isAnyHost(host: string): boolean {
  return host === '0.0.0.0' || host === '::';
}

function urlHost(host: string): string {
  if (isAnyHost(host)) return 'localhost';
  return host.includes(':') ? `[${host}]` : host;
}
