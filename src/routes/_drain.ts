import type { H3Event } from 'h3';

/** Past this, an unread body is left to the socket: a client sending more wants a reset anyway. */
const maxDrainBytes = 32 * 1024 * 1024;

/**
 * Reads and drops a request body the handler did not read (a 404, 405, 415 or 413 answered
 * from the headers, a DELETE with a body) before the answer goes out. HTTP allows answering
 * early, but fetch (undici) resets the connection when an answer arrives while it is still
 * sending, so the client would see ECONNRESET instead of our problem+json.
 */
export function drainUnreadBody(event: H3Event, next: () => unknown): unknown {
  const method = event.req.method;
  // Synchronous for reads: the hot path gets no extra promise.
  if (method === 'GET' || method === 'HEAD') return next();
  return answerThenDrain(event, next);
}

async function answerThenDrain(event: H3Event, next: () => unknown): Promise<unknown> {
  try {
    return await next();
  } finally {
    await drain(event);
  }
}

async function drain(event: H3Event): Promise<void> {
  const request = event.req;
  if (!request.headers.get('content-length') && !request.headers.get('transfer-encoding')) return;
  // Read to its end from node's stream (`_body.ts`): asking srvx for `body` now would build an errored web stream.
  if (event.runtime?.node?.req.readableEnded) return;
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
