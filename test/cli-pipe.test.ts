import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { cliPath, sandboxClient, useServer } from './helpers/server.js';

// `mockapi export | head -c 100` (issue 28): the reader closing the pipe early ends the export
// quietly, as `git log | head` does, not with an EPIPE stack.
const server = useServer();

/** Runs `mockapi <args> | <reader>` in bash; `meanwhile` runs until it ends. Resolves with the reader's output, mockapi's stderr and both exit codes. */
async function pipeline(args: string[], reader: string, meanwhile: () => Promise<unknown> = async () => {}) {
  const quoted = [process.execPath, cliPath, ...args].map((a) => `'${a}'`).join(' ');
  const shell = spawn('bash', ['-c', `${quoted} | ${reader}; echo "codes \${PIPESTATUS[*]}" >&2`], { env: { ...process.env, NO_COLOR: '1' } });
  let out = '';
  let err = '';
  shell.stdout.on('data', (chunk) => (out += chunk));
  shell.stderr.on('data', (chunk) => (err += chunk));
  let ended = false;
  const exited = new Promise<void>((done) => shell.once('exit', () => ((ended = true), done())));
  const until = Date.now() + 15_000;
  while (!ended && Date.now() < until) {
    await meanwhile();
    await new Promise((wait) => setTimeout(wait, 100));
  }
  if (!ended) shell.kill();
  await exited;
  return { out, err: err.replace(/codes .*\n/, ''), codes: /codes (.*)/.exec(err)?.[1] ?? '' };
}

describe('a command writing to a closed pipe', () => {
  it('export | head -c 100 exits quietly', async () => {
    const client = sandboxClient(server.api);
    // More than a pipe's buffer (64 KiB), so the write meets the closed pipe.
    for (let i = 0; i < 12; i++) expect((await client.post('/posts', { user_id: 1, title: `p${i}`, body: 'x'.repeat(9_000) })).status, 'create').toBeLessThan(300);
    const result = await pipeline(['export', '--sandbox', client.id, '--db', server.db], 'head -c 100');
    expect(result.out).toHaveLength(100);
    expect(result.err).toBe('');
    expect(result.codes).toBe('0 0');
  });

  it('webhook tail | head -n 2 exits quietly once the reader is gone', async () => {
    const client = sandboxClient(server.api);
    let n = 0;
    const write = () => client.patch('/todos/1', { title: `t${n++}` });
    for (let i = 0; i < 3; i++) await write();
    const result = await pipeline(['webhook', 'tail', '--sandbox', client.id, '--since', 'all', '--db', server.db], 'head -n 2', write);
    expect(result.out.trim().split('\n')).toHaveLength(2);
    expect(result.err).not.toMatch(/EPIPE|\n\s+at /);
    expect(result.codes).toBe('0 0');
  });
});
