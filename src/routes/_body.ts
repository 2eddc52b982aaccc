import type { Readable } from 'node:stream';
import type { H3Event } from 'h3';
import { ApiError, invalidBody, invalidJson, payloadTooLarge, unsupportedMediaType } from '../errors.js';
import { nestingDepth } from '../json-depth.js';

/** Deeper bodies are refused before any recursive code (merge patch, validation) sees them. */
const defaultMaxDepth = 32;

/**
 * Reads a JSON object body: 415 for a non-JSON content type, 413 past `limit` bytes (counted while
 * streaming, so a lying or missing Content-Length cannot get past), 400 for malformed JSON or a
 * body that is not an object or nests deeper than `maxDepth` levels.
 */
export async function readJsonObject(event: H3Event, limit: number, maxDepth = defaultMaxDepth): Promise<Record<string, unknown>> {
  const type = event.req.headers.get('content-type') ?? '';
  if (!/^application\/([\w.+-]+\+)?json\s*(;|$)/i.test(type)) {
    throw unsupportedMediaType(`send the body as application/json${type ? `, not ${type.split(';')[0]}` : ''}`);
  }
  // An honest oversized Content-Length is refused at once; the app drains the body before answering.
  const declared = Number(event.req.headers.get('content-length') ?? 0);
  if (declared > limit) throw payloadTooLarge(limit);

  const text = await readText(event, limit);
  if (text.trim() === '') throw invalidJson('the request body is empty');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    throw invalidJson(`the request body is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalidBody(`the request body must be a JSON object, not ${Array.isArray(body) ? 'an array' : body === null ? 'null' : typeof body}`);
  }
  if (nestingDepth(body, maxDepth) > maxDepth) throw invalidBody(`the request body nests deeper than ${maxDepth} levels`);
  return body as Record<string, unknown>;
}

/**
 * Reads the body up to `limit` bytes. Past it, the reader is released and 413 thrown: the app's
 * drain (`http/response-hook.ts`) reads the rest before the answer goes out, so the client gets the 413. (h3's
 * `assertBodySize` cancels the request stream instead, which resets the connection before the
 * 413 arrives: measured with test/early-answers.test.ts and test/validation.test.ts.)
 */
export async function readText(event: H3Event, limit: number): Promise<string> {
  return (await readBytes(event, limit)).toString('utf8');
}

/** The raw body, up to `limit` bytes (413 past it, as `readText`): uploads such as CSV and XLSX files. */
export async function readBytes(event: H3Event, limit: number): Promise<Buffer> {
  const declared = Number(event.req.headers.get('content-length') ?? 0);
  if (declared > limit) throw payloadTooLarge(limit);
  const method = event.req.method;
  if (method === 'GET' || method === 'HEAD') return Buffer.alloc(0);
  // Under node, from the IncomingMessage itself: the web stream srvx would wrap it in costs more
  // than a cached answer (measured: ~15 % of a cached GraphQL POST). Untouched streams only.
  const incoming = event.runtime?.node?.req;
  if (incoming && incoming.readableFlowing === null && !incoming.readableEnded) return readIncoming(incoming, limit);
  const stream = event.req.body;
  if (!stream) return Buffer.alloc(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > limit) throw payloadTooLarge(limit);
      chunks.push(value);
    }
  } catch (error) {
    if (error instanceof ApiError) throw error;
    // The client closed the connection before sending the whole body: nobody reads this answer.
    throw invalidBody('the request body ended before its declared length');
  } finally {
    reader.releaseLock();
  }
  return Buffer.concat(chunks);
}

/** `readBytes` from node's request stream: past `limit` it stops reading (paused, for the drain) and throws 413. */
function readIncoming(incoming: Readable, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => {
      incoming.off('data', onData);
      incoming.off('end', onEnd);
      incoming.off('error', onGone);
      incoming.off('close', onGone);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size > limit) {
        done();
        incoming.pause();
        reject(payloadTooLarge(limit));
      } else chunks.push(chunk);
    };
    const onEnd = () => {
      done();
      resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
    };
    // The client closed the connection before sending the whole body: nobody reads this answer.
    const onGone = () => {
      done();
      reject(invalidBody('the request body ended before its declared length'));
    };
    incoming.on('data', onData);
    incoming.once('end', onEnd);
    incoming.once('error', onGone);
    incoming.once('close', onGone);
  });
}
