import type { ConsolaInstance } from 'consola';

const loggers: { stdout?: ConsolaInstance; stderr?: ConsolaInstance } = {};

/**
 * A command's logger, made when the command runs: consola is the largest module the command line
 * would load, and `mockapi --help` needs none of it. Serve and init print their messages as their
 * output (stdout); the operations commands print theirs to stderr, so `mockapi export` can own
 * stdout. They print whatever NODE_ENV or CI say (consola's default instance drops `success`
 * under NODE_ENV=test).
 */
export async function commandLog(to: 'stdout' | 'stderr'): Promise<ConsolaInstance> {
  const { createConsola, LogLevels } = await import('consola');
  const stream = to === 'stderr' ? { stdout: process.stderr, stderr: process.stderr } : {};
  return (loggers[to] ??= createConsola({ level: LogLevels.info, fancy: true, ...stream }));
}
