import { describe, expect, it } from 'vitest';
import { useServer } from './helpers/server.js';

// An answer decided from the headers alone (404, 405, 415, 413) must still reach a client that is
// sending a large body: fetch resets the connection if the answer arrives mid-upload.
const server = useServer();
const big = JSON.stringify({ title: 'x'.repeat(3 * 1024 * 1024) });

describe('answers decided before the body is read', () => {
  it.each([
    ['POST', '/api/v1/nope', 'application/json', 404],
    ['PUT', '/api/v1/posts', 'application/json', 405],
    ['POST', '/api/v1/posts', 'text/plain', 415],
    ['POST', '/api/v1/posts', 'application/json', 413],
    ['PATCH', '/api/v1/posts/1', 'application/json', 413],
    ['DELETE', '/api/v1/todos/2', 'application/json', 200],
  ])('%s %s (%s) with a 3 MB body answers %i, every time', async (method, path, type, status) => {
    for (let i = 0; i < 8; i++) {
      const res = await fetch(`${server.url}${path}`, { method, body: big, headers: { 'content-type': type, cookie: `svc_identity=early-${i}` } });
      expect(res.status).toBe(status);
      await res.text();
    }
  });

  it('a client that stops mid-body is no server error (nothing logged as one)', async () => {
    const { connect } = await import('node:net');
    const { hostname, port } = new URL(server.url);
    for (const path of ['/api/v1/posts', '/api/v1/posts/1', '/api/v1/sandbox/import', '/api/v1/graphql']) {
      const socket = connect(Number(port), hostname);
      await new Promise((done) => socket.once('connect', done));
      socket.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"title":`);
      await new Promise((done) => setTimeout(done, 50));
      socket.destroy();
    }
    await new Promise((done) => setTimeout(done, 200));
    expect(server.stderr()).not.toMatch(/failed|Error/);
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
  });

  it('a chunked body far past every bound (40 MB) gets its 413 and the server keeps serving', async () => {
    const chunk = new TextEncoder().encode(`{"name":"${'x'.repeat(1024 * 1024 - 10)}`);
    for (const path of ['/api/v1/users', '/api/v1/sandbox/import']) {
      let sent = 0;
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          if ((sent += chunk.length) > 40 * 1024 * 1024) controller.close();
          else controller.enqueue(chunk);
        },
      });
      const res = await fetch(`${server.url}${path}`, { method: 'POST', body, duplex: 'half', headers: { 'content-type': 'application/json' } } as RequestInit).catch(
        (error: Error) => ({ status: (error.cause as NodeJS.ErrnoException)?.code ?? error.message, text: async () => '' }),
      );
      // Past the 32 MiB drain the server stops reading; the client may then see its 413 or a reset.
      expect([413, 'ECONNRESET', 'EPIPE']).toContain(res.status);
      await res.text();
      expect((await fetch(`${server.url}/health`)).status).toBe(200);
    }
    expect(server.stderr()).not.toMatch(/TypeError|failed/);
  }, 60_000);
});
