import { runCli } from '../../src/cli.js';
import type { Run } from './cli.js';

/** Thrown by the stubbed `process.exit`: the CLI ends there, as the real process would. */
class Exited extends Error {
  constructor(readonly code: number) {
    super(`process.exit(${code})`);
  }
}

/**
 * `mockapi serve ...args` run in this test file's worker, in `cwd`, for a config the CLI refuses:
 * the CLI's own option parser, config loader and one-line error report, its exit code and stderr,
 * without a Node start and a second import of the app (about 0.5 s of CPU each). Tests of the
 * CLI's process itself (signals, a busy port, what a real exit prints) spawn it (./cli.ts).
 */
export async function refusedServe(args: string[], cwd: string): Promise<Run> {
  const result = { code: null as number | null, stdout: '', stderr: '' };
  const { exit, stdout, stderr } = { exit: process.exit, stdout: process.stdout.write, stderr: process.stderr.write };
  const previous = process.cwd();
  process.exit = ((code?: number) => {
    throw new Exited(code ?? 0);
  }) as typeof process.exit;
  process.stdout.write = ((chunk: string | Uint8Array) => ((result.stdout += String(chunk)), true)) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string | Uint8Array) => ((result.stderr += String(chunk)), true)) as typeof process.stderr.write;
  process.chdir(cwd);
  try {
    await runCli([process.execPath, 'mockapi', 'serve', ...args]);
  } catch (error) {
    if (!(error instanceof Exited)) throw error;
    result.code = error.code;
  } finally {
    process.chdir(previous);
    process.exit = exit;
    process.stdout.write = stdout;
    process.stderr.write = stderr;
  }
  // A config that loads leaves a server listening in this worker: a test that expected a refusal fails here.
  if (result.code === null) throw new Error(`mockapi serve ${args.join(' ')} was not refused; it serves in this worker now`);
  return result;
}
