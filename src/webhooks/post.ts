import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

/** Sockets kept open per target host: a receiver gets at most this many requests at once. */
export const socketsPerHost = 16;

// node:http with keep-alive agents, not fetch: measured on this 2-core machine, 1,100-1,300 POSTs/s
// through fetch (undici) against 5,600-6,300/s through http.request to the same local receiver.
const agents = {
  'http:': new HttpAgent({ keepAlive: true, maxSockets: socketsPerHost }),
  'https:': new HttpsAgent({ keepAlive: true, maxSockets: socketsPerHost }),
};

/**
 * POSTs a body and resolves with the answer's status once the answer was read (its time counts),
 * or rejects: a connection error, no answer within `timeoutMs` (the message says so), or `signal`.
 */
export function postJson(url: string, headers: Record<string, string>, body: string, timeoutMs: number, signal?: AbortSignal): Promise<number> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const agent = target.protocol === 'https:' ? agents['https:'] : agents['http:'];
    const req = send(target, { method: 'POST', agent, headers: { ...headers, 'content-length': Buffer.byteLength(body) } }, (res) => {
      res.resume();
      res.once('end', () => {
        clearTimeout(timer);
        resolve(res.statusCode ?? 0);
      });
      res.once('error', (error) => req.destroy(error));
    });
    const timer = setTimeout(() => req.destroy(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    const abort = () => req.destroy(signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
    signal?.addEventListener('abort', abort, { once: true });
    req.once('error', (error) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', abort);
      reject(error);
    });
    req.once('close', () => signal?.removeEventListener('abort', abort));
    req.end(body);
  });
}
