import { runCli } from '../../src/cli.js';
import type { Run } from './cli.js';

/** Thrown by the stubbed `process.exit`: the CLI ends there, as the real process would. */
class Exited extends Error {
  constructor(readonly code: number) {
    super(`process.exit(${code})`);
  }
}

type Write = (chunk: string | Uint8Array, encoding?: BufferEncoding | ((error?: Error | null) => void), done?: (error?: Error | null) => void) => boolean;

/** A `write` that appends to `into` and calls back as a stream would (`writeStdout` waits for it). */
function capture(into: (text: string) => void): Write {
  return (chunk, encoding, done) => {
    into(String(chunk));
    const callback = typeof encoding === 'function' ? encoding : done;
    if (callback) queueMicrotask(() => callback(null));
    return true;
  };
}

/**
 * `mockapi ...args` run in this test file's worker, in `cwd`, for a command that ends (help,
 * usage errors, export, import, reset, a refused serve): the CLI's own option parser, commands,
 * one-line error report and exit code (`process.exit` and stdout/stderr stubbed), without a Node
 * start and a second import of the app (0.2-0.5 s of CPU each). Tests of the CLI's process itself
 * (signals, pipes, a busy port, what a real exit prints) spawn it (./cli.ts), and each CLI test
 * file keeps one spawned run per command family showing the real binary does the same.
 */
export async function runInProcess(args: string[], cwd: string): Promise<Run> {
  const result = { code: null as number | null, stdout: '', stderr: '' };
  const saved = { exit: process.exit, stdout: process.stdout.write, stderr: process.stderr.write, exitCode: process.exitCode };
  const previous = process.cwd();
  process.exit = ((code?: number) => {
    throw new Exited(code ?? 0);
  }) as typeof process.exit;
  process.stdout.write = capture((text) => (result.stdout += text)) as typeof process.stdout.write;
  process.stderr.write = capture((text) => (result.stderr += text)) as typeof process.stderr.write;
  process.exitCode = undefined;
  process.chdir(cwd);
  try {
    await runCli([process.execPath, 'mockapi', ...args]);
    // A command that returns ends the real process with the exit code it set, else 0.
    result.code = typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (error) {
    if (!(error instanceof Exited)) throw error;
    result.code = error.code;
  } finally {
    process.chdir(previous);
    process.exit = saved.exit;
    process.stdout.write = saved.stdout;
    process.stderr.write = saved.stderr;
    process.exitCode = saved.exitCode;
  }
  return result;
}

/** `mockapi serve ...args` in this worker for a config the CLI refuses (see runInProcess). */
export async function refusedServe(args: string[], cwd: string): Promise<Run> {
  const result = await runInProcess(['serve', ...args], cwd);
  // A config that loads leaves a server listening in this worker: a test that expected a refusal fails here.
  if (result.code === 0) throw new Error(`mockapi serve ${args.join(' ')} was not refused; it serves in this worker now`);
  return result;
}
