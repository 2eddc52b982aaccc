import type { Readable } from 'node:stream';
import type { H3, H3Event } from 'h3';
import type { ActivityLog } from '../engine/activity.js';
import { unmatchedRoute, type RequestRecorder } from '../metrics/request-recorder.js';

declare module 'h3' {
  interface H3EventContext {
    /** `performance.now()` when the request arrived: the latency metrics and the activity log's durations. */
    arrivedAt?: number;
  }
}

/** Paths longer than this are cut in the activity log (the log is bounded in bytes too). */
const maxLoggedPath = 256;

/** A request's path as the activity log keeps it. */
export const loggedPath = (path: string): string => (path.length > maxLoggedPath ? `${path.slice(0, maxLoggedPath)}…` : path);

/** Past this, an unread body is left to the socket: a client sending more wants a reset anyway. */
const maxDrainBytes = 32 * 1024 * 1024;

/**
 * What happens around every answer of the app, outside the request chain: its arrival time, an
 * unread request body drained, and the answer recorded in the metrics (`/metrics`) and in its
 * sandbox's in-memory activity log (never a SQLite write). Installed around `app.fetch` instead of
 * h3's `onResponse` option, which chains three promises and as many closures onto every answer
 * and makes every answer asynchronous: here a synchronous answer is seen synchronously, an
 * asynchronous one through one `then`.
 *
 * `app.fetch` makes the event and calls `onRequest` synchronously, so the event of the request
 * being answered is the one `onRequest` saw last. A URL h3 refuses before `onRequest` (400,
 * malformed) has no event: it is counted as unmatched.
 */
export function installHooks(app: H3, recorder: RequestRecorder, activity: ActivityLog): void {
  let arriving: H3Event | undefined;
  app.config.onRequest = (event) => {
    arriving = event;
    event.context.arrivedAt = performance.now();
  };

  const answered = (response: Response, event: H3Event | undefined, request: Request): Response => {
    // A recording that fails must not fail the answer (h3's hook swallowed it too).
    try {
      if (!event) {
        recorder.record(unmatchedRoute, request.method, response.status, 0);
        return response;
      }
      const ms = performance.now() - event.context.arrivedAt!;
      recorder.answered(event, response.status, ms / 1000);
      // Set by the request context for a named sandbox (even when the route then fails) or once one
      // was minted: a failure never mints a sandbox just to log it. A preflight touches no sandbox.
      const sandbox = event.context.sandbox;
      if (sandbox && !event.context.preflight) {
        activity.record(sandbox, request.method, loggedPath(event.url.pathname), response.status, Math.round(ms * 100) / 100, Date.now());
      }
    } catch {
      // as above
    }
    return response;
  };

  const fetch = app.fetch;
  app.fetch = (request) => {
    arriving = undefined;
    const result = fetch(request);
    const event = arriving;
    arriving = undefined;
    const method = request.method;
    // A body the handler did not read is read to its end before the answer goes out (below).
    if (event && method !== 'GET' && method !== 'HEAD') {
      return Promise.resolve(result).then(async (response: Response) => {
        await drain(event);
        return answered(response, event, request);
      });
    }
    if (result instanceof Promise) return result.then((response: Response) => answered(response, event, request));
    return answered(result, event, request);
  };
}

/**
 * Reads and drops a request body the handler did not read (a 404, 405, 415 or 413 answered
 * from the headers, a DELETE with a body) before the answer goes out. HTTP allows answering
 * early, but fetch (undici) resets the connection when an answer arrives while it is still
 * sending, so the client would see ECONNRESET instead of our problem+json.
 */
async function drain(event: H3Event): Promise<void> {
  const request = event.req;
  if (!request.headers.get('content-length') && !request.headers.get('transfer-encoding')) return;
  const incoming = event.runtime?.node?.req;
  // Read to its end from node's stream (`routes/_body.ts`): asking srvx for `body` now would build an errored web stream.
  if (incoming?.readableEnded) return;
  // Untouched, or paused by a 413 of `_body.ts`: read on from node's stream, no web stream built for it.
  if (incoming && (incoming.readableFlowing === null || (incoming.readableFlowing === false && incoming.listenerCount('data') === 0))) {
    return drainIncoming(incoming);
  }
  // Unread, or read part-way (a 413 releases its reader): read on to the end. A locked body is still being read.
  if (!request.body || request.body.locked) return;
  const reader = request.body.getReader();
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      size += value.byteLength;
      // Past the bound, stop reading (cancelling would destroy the socket under the answer).
      if (size > maxDrainBytes) return reader.releaseLock();
    }
  } catch {
    // The client went away: nothing left to drain.
  }
}

/** `drain` on node's request stream: read to the end (or to the bound, then left paused), never an error. */
function drainIncoming(incoming: Readable): Promise<void> {
  return new Promise((done) => {
    let size = 0;
    const finish = () => {
      incoming.off('data', onData);
      incoming.off('end', finish);
      incoming.off('close', finish);
      incoming.off('error', finish);
      done();
    };
    const onData = (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size > maxDrainBytes) {
        incoming.pause();
        finish();
      }
    };
    incoming.on('data', onData);
    incoming.once('end', finish);
    incoming.once('close', finish);
    incoming.once('error', finish);
    incoming.resume();
  });
}
