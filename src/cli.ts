import { Command, CommanderError, Help } from 'commander';
import { version } from './version.js';

/**
 * The commands, in the order `--help` lists them: each with its line there (`term`, `description`:
 * what commander prints for the loaded command, checked by test/unit/cli-commands.test.ts) and its module.
 */
export const commands: { name: string; term: string; description: string; load: () => Promise<Command> }[] = [
  { name: 'serve', term: 'serve [options]', description: 'serve the mock API over HTTP', load: async () => (await import('./commands/serve.js')).makeServeCommand() },
  {
    name: 'reset',
    term: 'reset [options]',
    description: "purge sandboxes' changes (snapshots are kept), also while a server runs on the file",
    load: async () => (await import('./commands/reset.js')).makeResetCommand(),
  },
  {
    name: 'export',
    term: 'export [options]',
    description: 'write sandboxes as one JSON export document (see schemas/mockapi-export.schema.json)',
    load: async () => (await import('./commands/export.js')).makeExportCommand(),
  },
  {
    name: 'import',
    term: 'import [options] <file>',
    description: 'replace the sandboxes of an export document by their exported state (others are untouched), all in one transaction',
    load: async () => (await import('./commands/import.js')).makeImportCommand(),
  },
  { name: 'webhook', term: 'webhook', description: 'webhook tools', load: async () => (await import('./commands/webhook-tail.js')).makeWebhookCommand() },
  {
    name: 'init',
    term: 'init',
    description: 'write mockapi.config.ts and fixtures/ (a copy of the baseline) into the current folder; never overwrites',
    load: async () => (await import('./commands/init.js')).makeInitCommand(),
  },
  {
    name: 'openapi',
    term: 'openapi [options]',
    description: 'write the OpenAPI document of the mock API (what GET /api/v1/openapi.json serves) without starting a server',
    load: async () => (await import('./commands/openapi.js')).makeOpenApiCommand(),
  },
];

/** Exit codes of every command (contract section 1). */
export const exitCodes = { ok: 0, failure: 1, usage: 2 } as const;

/**
 * Runs the `mockapi` command line. Commands throw; only this function prints errors and decides
 * the exit code: 0 success, 1 failure, 2 bad usage. Errors are one line on stderr, with the stack
 * only under `--debug`.
 */
export async function runCli(argv: string[]): Promise<void> {
  const debug = wantsDebug(argv);
  const program = new Command('mockapi')
    .description('A local mock REST API where every visitor works in a private copy-on-write sandbox.')
    .version(version, '-v, --version', 'print the version')
    .option('--debug', 'print stack traces of errors');
  // Only the commands the arguments name are loaded; the others stand in by their line of the
  // top-level help (`mockapi --help` loaded 15 modules it never ran).
  const named = new Set(argv.slice(2));
  const listed = new Map<Command, string>();
  for (const command of commands) {
    if (named.has(command.name)) program.addCommand(await command.load());
    else {
      const standIn = new Command(command.name).description(command.description);
      listed.set(standIn, command.term);
      program.addCommand(standIn);
    }
  }
  program.configureHelp({ subcommandTerm: (cmd) => listed.get(cmd) ?? Help.prototype.subcommandTerm.call(program.createHelp(), cmd) });

  // Commander's error messages wait for the catch below, which loads the label's colours only then.
  const messages: string[] = [];
  applyCliSettings(program, messages);
  try {
    await program.parseAsync(argv);
  } catch (error) {
    process.exit(await reportError(error, debug, messages));
  }
}

/**
 * Commander copies settings to subcommands only when they are made with `.command()`, not with
 * `.addCommand()`, so every command of the tree gets them here, after it is complete.
 */
function applyCliSettings(command: Command, messages: string[]): void {
  command
    .exitOverride()
    .configureHelp({ ...command.configureHelp(), showGlobalOptions: true, sortOptions: false })
    .configureOutput({
      // Commander's messages look like "error: unknown option '--x'\n(Did you mean --y?)": one line here.
      outputError: (message) => {
        const text = message.trim().replace(/^error:\s*/, '').replace(/\s*\n\s*/g, ' ');
        messages.push(`${text} (see "${commandPath(command)} --help")`);
      },
    });
  for (const sub of command.commands) applyCliSettings(sub, messages);
}

/** Prints a thrown error in one line (or its stack under --debug) and returns the exit code. */
async function reportError(error: unknown, debug: boolean, messages: string[]): Promise<number> {
  if (error instanceof CommanderError) {
    // Commander has already printed the help, or handed its message to configureOutput.
    for (const message of messages) process.stderr.write(`${await label()} ${message}\n`);
    if (error.exitCode === 0) return exitCodes.ok;
    // `command.error(msg, { exitCode })` keeps its code; everything else commander raises is bad usage.
    return error.code === 'commander.error' ? error.exitCode : exitCodes.usage;
  }
  const message = error instanceof Error ? error.message : String(error);
  if (debug && error instanceof Error && error.stack) process.stderr.write(`${error.stack}\n`);
  else process.stderr.write(`${await label()} ${oneLine(message)}\n`);
  return exitCodes.failure;
}

function wantsDebug(argv: string[]): boolean {
  const args = argv.slice(2);
  const end = args.indexOf('--');
  return (end === -1 ? args : args.slice(0, end)).includes('--debug');
}

function commandPath(command: Command): string {
  const names: string[] = [];
  for (let at: Command | null = command; at; at = at.parent) names.unshift(at.name());
  return names.join(' ');
}

function oneLine(message: string): string {
  return message.trim().replace(/\s*\n\s*/g, ' ') || 'unknown error';
}

async function label(): Promise<string> {
  return process.stderr.isTTY ? (await import('consola/utils')).colors.red('mockapi:') : 'mockapi:';
}
