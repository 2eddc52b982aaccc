import { spawn, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';

export const repoRoot = resolve(import.meta.dirname, '../..');
export const cliPath = join(repoRoot, 'bin/mockapi.mjs');

export interface SpawnedProcess {
  url: string;
  proc: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** Sends a signal and resolves with the exit code. */
  stop: (signal?: NodeJS.Signals) => Promise<number | null>;
}

/** Starts the built CLI (`mockapi serve --port 0 --db <db> ...args`) and waits for the URL it prints. */
export async function spawnServe(db: string, args: string[], cwd: string, env: Record<string, string> = {}): Promise<SpawnedProcess> {
  const proc = spawn(process.execPath, [cliPath, 'serve', '--port', '0', '--db', db, ...args], {
    cwd,
    env: { ...process.env, NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  proc.stdout!.on('data', (chunk) => (out += chunk));
  proc.stderr!.on('data', (chunk) => (err += chunk));
  const exited = new Promise<number | null>((done) => proc.once('exit', (code) => done(code)));

  const url = await new Promise<string>((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`server did not print its URL in 20 s\nstdout: ${out}\nstderr: ${err}`)), 20_000);
    const check = () => {
      const match = /http:\/\/[\w.\-[\]:]+:\d+/.exec(out);
      if (match) {
        clearTimeout(timer);
        done(match[0]);
      }
    };
    proc.stdout!.on('data', check);
    proc.once('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`server exited with ${code} before listening\nstdout: ${out}\nstderr: ${err}`));
    });
  });

  return {
    url,
    proc,
    stdout: () => out,
    stderr: () => err,
    stop: async (signal = 'SIGTERM') => {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
      return exited;
    },
  };
}
