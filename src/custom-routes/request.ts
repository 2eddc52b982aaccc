import { invalidBody, invalidJson, payloadTooLarge } from '../errors.js';

/**
 * The `request` a custom route gets: the standard Fetch Request, with the body rules of every
 * other route (contract section 19): past `limit` bytes reading it throws 413 (counted while
 * streaming, so a lying Content-Length cannot get past), and `json()` on malformed JSON 400
 * INVALID_JSON. The original body is only read when the handler reads this one, so a body the
 * handler ignores is still drained by the app (`http/response-hook.ts`) before the answer goes out.
 */
export function limitedRequest(original: Request, limit: number): Request {
  const hasBody = original.body !== null && original.method !== 'GET' && original.method !== 'HEAD';
  const init: RequestInit & { duplex?: 'half' } = { method: original.method, headers: original.headers, signal: original.signal };
  if (hasBody) {
    init.body = limitedBody(original, limit);
    init.duplex = 'half';
  }
  return new HandlerRequest(original.url, init);
}

class HandlerRequest extends Request {
  override async json(): Promise<any> {
    const text = await this.text();
    if (text.trim() === '') throw invalidJson('the request body is empty');
    try {
      return JSON.parse(text);
    } catch (error) {
      throw invalidJson(`the request body is not valid JSON: ${(error as Error).message}`);
    }
  }
}

/** The original body, pulled only on demand (highWaterMark 0), erroring with 413 past `limit`. */
function limitedBody(original: Request, limit: number): ReadableStream<Uint8Array> {
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  let size = 0;
  const declared = Number(original.headers.get('content-length') ?? 0);
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        // An honest oversized Content-Length is refused before anything is read.
        if (declared > limit) return controller.error(payloadTooLarge(limit));
        reader ??= original.body!.getReader();
        let chunk: ReadableStreamReadResult<Uint8Array>;
        try {
          chunk = await reader.read();
        } catch {
          // The client closed the connection before sending the whole body: nobody reads this answer.
          return controller.error(invalidBody('the request body ended before its declared length'));
        }
        const { done, value } = chunk;
        if (done) return controller.close();
        size += value.byteLength;
        if (size > limit) {
          // Released, so the app's drain reads the rest and the client gets the 413.
          reader.releaseLock();
          return controller.error(payloadTooLarge(limit));
        }
        controller.enqueue(value);
      },
      cancel(reason) {
        return reader?.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}
