import { clientClosedRequest } from '../errors.js';

/**
 * Waits `ms` on a timer, never by blocking: a thousand delayed requests are a thousand idle
 * timers. When the client goes away (`signal` aborts), the timer is cleared at once and the
 * request ends as 499, so nothing is kept for an answer no one will read.
 */
export function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(clientClosedRequest());
    const onAbort = () => {
      clearTimeout(timer);
      reject(clientClosedRequest());
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
