import type { H3, H3Config, H3Event } from 'h3';

type Hooks = Pick<H3Config, 'onRequest' | 'onResponse'>;

/**
 * Installs `hooks` on an app without h3's own `onResponse` option, which chains three promises
 * and as many closures onto every answer, and makes every answer asynchronous (a cached page
 * answered synchronously becomes three microtasks later). Here a synchronous answer is seen
 * synchronously, an asynchronous one through one `then`.
 *
 * `app.fetch` makes the event and calls `onRequest` synchronously, so the event of the request
 * being answered is the one `onRequest` saw last. A URL h3 refuses before `onRequest` (400,
 * malformed) has no event: `unseen` gets its answer instead.
 */
export function installHooks(app: H3, hooks: Hooks, unseen: (response: Response, request: Request) => void): void {
  const { onRequest, onResponse } = hooks;
  let arriving: H3Event | undefined;
  app.config.onRequest = (event) => {
    arriving = event;
    return onRequest?.(event);
  };
  if (!onResponse) return;
  const answered = (response: Response, event: H3Event | undefined, request: Request) => {
    // A recording that fails must not fail the answer (h3's hook swallowed it too).
    try {
      if (!event) return unseen(response, request);
      const recorded = onResponse(response, event);
      if (recorded instanceof Promise) recorded.catch(() => undefined);
    } catch {
      // as above
    }
  };
  const fetch = app.fetch;
  app.fetch = (request) => {
    arriving = undefined;
    const result = fetch(request);
    const event = arriving;
    arriving = undefined;
    if (result instanceof Promise) {
      return result.then((response: Response) => {
        answered(response, event, request);
        return response;
      });
    }
    answered(result, event, request);
    return result;
  };
}
