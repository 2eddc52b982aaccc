import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createNodeHandler } from './app.js';
import type { Runtime } from './runtime.js';

export interface Listening {
  /** The server root, no trailing slash. */
  url: string;
  /** Stops accepting, lets open requests finish (cut after the grace), then closes the runtime. */
  close(): Promise<void>;
}

/**
 * The app over `runtime`, listening on host:port (0: any free port), with no output and no
 * signal handlers: `createMockServer` and the test suite's in-process servers.
 */
export async function listenApp(runtime: Runtime, port: number, host: string, closeGraceMs: number): Promise<Listening> {
  let server: Server;
  try {
    server = await listenHttp(createNodeHandler(runtime), port, host);
  } catch (error) {
    runtime.close();
    const reason = (error as NodeJS.ErrnoException).code === 'EADDRINUSE' ? 'the port is already in use' : (error as Error).message;
    throw new Error(`mockapi: cannot listen on ${host}:${port}: ${reason}`);
  }
  let closing: Promise<void> | undefined;
  return {
    url: `http://${connectHost(host)}:${(server.address() as AddressInfo).port}`,
    close: () =>
      (closing ??= (async () => {
        // A stream never ends by itself.
        runtime.streams.closeAll();
        try {
          await closeHttp(server, closeGraceMs);
        } finally {
          runtime.close();
        }
      })()),
  };
}

/** A node:http server over `handler` listening on host:port (0: any free port); fails with the listen error itself. */
export function listenHttp(handler: (req: IncomingMessage, res: ServerResponse) => void, port: number, host: string): Promise<Server> {
  return new Promise((done, fail) => {
    const server = createServer(handler);
    server.once('error', fail);
    server.listen({ port, host, exclusive: true }, () => done(server));
  });
}

/**
 * Stops accepting and resolves once every connection has ended: idle keep-alive connections at
 * once, busy ones as soon as their answer is sent (node's `close()` alone would keep those open
 * for `keepAliveTimeout`), and whatever is still open (a stream, a request that never ends) is
 * cut after `graceMs`.
 */
export function closeHttp(server: Server, graceMs: number): Promise<void> {
  return new Promise((done, fail) => {
    const idle = setInterval(() => server.closeIdleConnections(), 50);
    const force = setTimeout(() => server.closeAllConnections(), graceMs);
    idle.unref();
    force.unref();
    server.close((error) => {
      clearInterval(idle);
      clearTimeout(force);
      return error ? fail(error) : done();
    });
  });
}

/** Where a client connects for a listening host: a wildcard address is reached on loopback. */
function connectHost(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}
