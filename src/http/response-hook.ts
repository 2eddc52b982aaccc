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

/**
 * What happens around every answer of the app, outside the request chain: its arrival time, and
 * the answer recorded in the metrics (`/metrics`) and in its sandbox's in-memory activity log
 * (never a SQLite write). A body the handler did not read (a 404, 405, 415 or 413 answered from
 * the headers) needs nothing here: node's server reads and drops it once the answer is sent, so
 * the client still gets its answer (test/early-answers.test.ts). Installed around `app.fetch` instead of
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
    if (result instanceof Promise) return result.then((response: Response) => answered(response, event, request));
    return answered(result, event, request);
  };
}
