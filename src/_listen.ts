import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toNodeHandler } from 'h3/node';
import { createApp } from './app.js';
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
    server = await listen(toNodeHandler(createApp(runtime)), port, host);
  } catch (error) {
    runtime.close();
    throw error;
  }
  let closing: Promise<void> | undefined;
  return {
    url: `http://${connectHost(host)}:${(server.address() as AddressInfo).port}`,
    close: () =>
      (closing ??= new Promise<void>((done, fail) => {
        // A keep-alive connection, or a stream that never ends, must not hold the port forever.
        runtime.streams.closeAll();
        const force = setTimeout(() => server.closeAllConnections(), closeGraceMs);
        force.unref();
        server.close((error) => {
          clearTimeout(force);
          try {
            runtime.close();
          } catch (closeError) {
            return fail(closeError as Error);
          }
          return error ? fail(error) : done();
        });
        server.closeIdleConnections();
      })),
  };
}

function listen(handler: ReturnType<typeof toNodeHandler>, port: number, host: string): Promise<Server> {
  return new Promise((done, fail) => {
    const server = createServer(handler);
    server.once('error', (error: NodeJS.ErrnoException) => {
      const reason = error.code === 'EADDRINUSE' ? 'the port is already in use' : error.message;
      fail(new Error(`mockapi: cannot listen on ${host}:${port}: ${reason}`));
    });
    server.listen({ port, host, exclusive: true }, () => done(server));
  });
}

/** Where a client connects for a listening host: a wildcard address is reached on loopback. */
function connectHost(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}
