import type { H3Event } from 'h3';

/** Past this, an unread body is left to the socket: a client sending more wants a reset anyway. */
const maxDrainBytes = 32 * 1024 * 1024;

/**
 * Reads and drops a request body the handler did not read (a 404, 405, 415 or 413 answered
 * from the headers, a DELETE with a body) before the answer goes out. HTTP allows answering
 * early, but fetch (undici) resets the connection when an answer arrives while it is still
 * sending, so the client would see ECONNRESET instead of our problem+json.
 */
export async function drainUnreadBody(event: H3Event, next: () => unknown): Promise<unknown> {
  const method = event.req.method;
  if (method === 'GET' || method === 'HEAD') return next();
  try {
    return await next();
  } finally {
    await drain(event);
  }
}

async function drain(event: H3Event): Promise<void> {
  const request = event.req;
  if (request.bodyUsed || !request.body) return;
  if (!request.headers.get('content-length') && !request.headers.get('transfer-encoding')) return;
  const reader = request.body.getReader();
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      size += value.byteLength;
      if (size > maxDrainBytes) {
        await reader.cancel();
        return;
      }
    }
  } catch {
    // The client went away: nothing left to drain.
  }
}
