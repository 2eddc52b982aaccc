import { consola, type LogObject } from 'consola';
import { listenApp } from '../../src/_listen.js';
import { makeServeCommand } from '../../src/commands/serve.js';
import { loadMockapiConfig, type ConfigFlags } from '../../src/config.js';
import { createRuntime } from '../../src/runtime.js';
import { parseSimulationConfig } from '../../src/simulate/simulate.js';

export interface InProcessServer {
  url: string;
  /** What the app logged (its unexpected errors) since this server started. */
  stderr: () => string;
  /** Stops as `mockapi serve` does on SIGTERM or SIGINT: streams end, open requests finish, the database closes. */
  stop: (signal?: NodeJS.Signals) => Promise<number>;
}

// The app logs unexpected errors with consola; a spawned server's stderr holds them, so an
// in-process one keeps them too (one buffer per test file: each file runs in its own worker).
let logged = '';
consola.setReporters([
  {
    log: (entry: LogObject) => {
      logged += `${entry.args.map((arg) => (arg instanceof Error ? (arg.stack ?? arg.message) : String(arg))).join(' ')}\n`;
    },
  },
]);
// A spawned server's stderr also shows Node's warnings (a listener leak, a deprecation).
process.on('warning', (warning) => {
  logged += `${warning.stack ?? warning.message}\n`;
});

/** In-flight requests get this long to finish on stop before their connections are cut (the CLI's grace). */
const stopGraceMs = 5_000;

/**
 * What `mockapi serve --port 0 --db <db> ...args` does, in this process: the CLI's own option
 * parser, the config loaded from `cwd`, the runtime and the app, listening on any free port.
 */
export async function serveInProcess(db: string, args: string[], cwd: string): Promise<InProcessServer> {
  const flags = await parseServeArgs(['--port', '0', '--db', db, ...args]);
  const config = await loadMockapiConfig(flags, cwd);
  parseSimulationConfig(config);
  const listening = await listenApp(await createRuntime(config), 0, config.host, stopGraceMs);
  const from = logged.length;
  return {
    url: listening.url,
    stderr: () => logged.slice(from),
    stop: async (signal = 'SIGTERM') => {
      // A kill (a crash, no shutdown at all) needs a process of its own.
      if (signal !== 'SIGTERM' && signal !== 'SIGINT') throw new Error(`stop('${signal}'): start the server with { cli: true } to send it signals`);
      await listening.close();
      return 0;
    },
  };
}

/** The serve command's options, parsed (and checked) by the command itself, with its action replaced. */
async function parseServeArgs(args: string[]): Promise<ConfigFlags> {
  let parsed: (ConfigFlags & { watch?: boolean }) | undefined;
  const command = makeServeCommand()
    .exitOverride()
    .configureOutput({ writeErr: () => undefined })
    .action((options: ConfigFlags & { watch?: boolean }) => {
      parsed = options;
    });
  await command.parseAsync(args, { from: 'user' });
  const { config, port, host, db, authRequired, latency, watch } = parsed!;
  if (watch) throw new Error('--watch needs the real CLI: start the server with { cli: true }');
  return { config, port, host, db, authRequired, latency };
}
