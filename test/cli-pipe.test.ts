import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { cliPath, sandboxClient, useServer } from './helpers/server.js';

// `mockapi export | head -c 100` (issue 28): the reader closing the pipe early ends the export
// quietly, as `git log | head` does, not with an EPIPE stack.
const server = useServer();

describe('a command writing to a closed pipe', () => {
  it('export | head -c 100 exits quietly', async () => {
    const client = sandboxClient(server.api);
    // More than a pipe's buffer (64 KiB), so the write meets the closed pipe.
    for (let i = 0; i < 12; i++) expect((await client.post('/posts', { user_id: 1, title: `p${i}`, body: 'x'.repeat(9_000) })).status, 'create').toBeLessThan(300);
    const result = await new Promise<{ out: string; err: string; codes: string }>((done) => {
      const command = `'${process.execPath}' '${cliPath}' export --sandbox '${client.id}' --db '${server.db}' | head -c 100; echo "codes \${PIPESTATUS[*]}" >&2`;
      const shell = spawn('bash', ['-c', command], { env: { ...process.env, NO_COLOR: '1' } });
      let out = '';
      let err = '';
      shell.stdout.on('data', (chunk) => (out += chunk));
      shell.stderr.on('data', (chunk) => (err += chunk));
      shell.once('exit', () => done({ out, err: err.replace(/codes .*\n/, ''), codes: /codes (.*)/.exec(err)?.[1] ?? '' }));
    });
    expect(result.out).toHaveLength(100);
    expect(result.err).toBe('');
    expect(result.codes).toBe('0 0');
  });
});
