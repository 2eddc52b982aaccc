import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

/** What the receiver answers to the next request: a status, or `hang` (never answers). */
export type Reply = number | 'hang';

/**
 * A real webhook receiver on its own port: records every request and answers from a script
 * (`replies`, one per request, then `fallback`).
 */
export async function startReceiver(replies: Reply[] = [], fallback: Reply = 200) {
  const received: Received[] = [];
  const waiters: { count: number; done: () => void }[] = [];
  const hanging = new Set<import('node:http').ServerResponse>();
  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      received.push({ headers: req.headers, body, at: Date.now() });
      for (const waiter of [...waiters]) {
        if (received.length >= waiter.count) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.done();
        }
      }
      const reply = replies.length ? replies.shift()! : fallback;
      if (reply === 'hang') {
        hanging.add(res);
        return;
      }
      res.writeHead(reply, { 'content-type': 'text/plain' }).end(String(reply));
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    received,
    /** The parsed bodies received so far. */
    bodies: () => received.map((r) => JSON.parse(r.body)),
    /** Resolves once `count` requests arrived (fails after `ms`). */
    waitFor(count: number, ms = 10_000): Promise<void> {
      if (received.length >= count) return Promise.resolve();
      return new Promise((done, fail) => {
        const timer = setTimeout(() => fail(new Error(`receiver got ${received.length} requests, not ${count}, in ${ms} ms`)), ms);
        waiters.push({ count, done: () => (clearTimeout(timer), done()) });
      });
    },
    setReplies(next: Reply[], nextFallback: Reply = fallback) {
      replies.splice(0, replies.length, ...next);
      fallback = nextFallback;
    },
    close: () =>
      new Promise<void>((done) => {
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/** Polls `check` until it returns a truthy value (fails after `ms`). */
export async function eventually<T>(check: () => Promise<T | undefined | false>, ms = 10_000, every = 25): Promise<T> {
  // performance.now: a test may fake Date (test/helpers/clock.ts).
  const until = performance.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (performance.now() > until) throw new Error('the condition did not hold in time');
    await new Promise((done) => setTimeout(done, every));
  }
}
