import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { cliPath } from './server.js';

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the built CLI to its end (for commands that do not keep serving); fails after 20 s. */
export function runCli(args: string[], cwd = tmpdir()): Promise<Run> {
  return new Promise((done, fail) => {
    const proc = spawn(process.execPath, [cliPath, ...args], { cwd, env: { ...process.env, NO_COLOR: '1' } });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (chunk) => (stdout += chunk));
    proc.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      fail(new Error(`mockapi ${args.join(' ')} did not end\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, 20_000);
    proc.once('exit', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
  });
}
