import { Command, CommanderError } from 'commander';
import { makeServeCommand } from './commands/serve.js';
import { makeResetCommand } from './commands/reset.js';
import { makeExportCommand } from './commands/export.js';
import { makeImportCommand } from './commands/import.js';
import { makeInitCommand } from './commands/init.js';
import { makeWebhookCommand } from './commands/webhook-tail.js';
import { makeOpenApiCommand } from './commands/openapi.js';
import { version } from './version.js';

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
    .option('--debug', 'print stack traces of errors')
    .addCommand(makeServeCommand())
    .addCommand(makeResetCommand())
    .addCommand(makeExportCommand())
    .addCommand(makeImportCommand())
    .addCommand(makeWebhookCommand())
    .addCommand(makeInitCommand())
    .addCommand(makeOpenApiCommand());

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
    .configureHelp({ showGlobalOptions: true, sortOptions: false })
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
