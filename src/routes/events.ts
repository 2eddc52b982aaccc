import type { H3, H3Event } from 'h3';
import { sandboxOf } from '../auth/identity.js';
import { envelopeOf, type LoggedEvent } from '../engine/change-log.js';
import { compilePatterns } from '../engine/event-pattern.js';
import { listEvents, parseEventListQuery, readPatterns, readSince } from '../engine/event-list.js';
import type { LiveStream } from '../live/stream-hub.js';
import type { Runtime } from '../runtime.js';
import { route, sendJson } from './_resource.js';

/** A client that stops reading loses its stream past this many queued chunks, instead of growing memory. */
const maxQueuedChunks = 1000;

/** `GET /api/v1/events` (the sandbox's log) and `GET /api/v1/events/stream` (server-sent events), contract section 15. */
export function addEventRoutes(app: H3, runtime: Runtime): void {
  const { engine } = runtime;
  const hub = runtime.streams;

  route(app, '/api/v1/events', {
    GET: {
      scope: 'events:read',
      handler: (event) => {
        const sandbox = sandboxOf(event);
        const query = parseEventListQuery(event.url.searchParams, runtime.config.limits.maxPageSize);
        const page = listEvents(engine.changes, engine.sandboxes.sidOf(sandbox), query);
        return sendJson(event, `{"data":${page.json},"pagination":${JSON.stringify(page.pagination)}}`);
      },
    },
  });

  route(app, '/api/v1/events/stream', {
    GET: { scope: 'events:read', handler: (event) => openStream(event) },
  });

  function openStream(event: H3Event): Response {
    const sandbox = sandboxOf(event);
    const params = event.url.searchParams;
    const matches = compilePatterns(readPatterns(params));
    // The header wins over `?since=`; a malformed header (not ours) replays everything, like an id the log no longer has.
    const headers = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache, no-transform', 'x-accel-buffering': 'no' };
    // HEAD gets the headers only: no stream is opened for a body nobody will read.
    if (event.req.method === 'HEAD') return new Response(null, { headers });
    const header = event.req.headers.get('last-event-id');
    const sinceId = header !== null ? header.trim() : readSince(params.get('since'));

    const encoder = new TextEncoder();
    let stop = () => {};
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        let open = true;
        const end = () => {
          if (!open) return;
          open = false;
          stop();
          try {
            controller.close();
          } catch {
            // already closed
          }
        };
        const write = (text: string) => {
          if (!open) return;
          try {
            if ((controller.desiredSize ?? 0) < -maxQueuedChunks) throw new Error('the client stopped reading');
            controller.enqueue(encoder.encode(text));
          } catch {
            // Gone or stuck: this stream ends, the others go on.
            end();
          }
        };
        write(`retry: 2000\n: connected to the event stream of sandbox ${sandbox}\n\n`);
        // Replay and registration happen in one tick: nothing is logged between them.
        const sid = engine.sandboxes.sidOf(sandbox);
        const at = sinceId === undefined ? undefined : engine.changes.locate(sid, sinceId);
        const since = at?.held ? at.after : 0;
        const stream: LiveStream = {
          sandbox,
          matches,
          lastN: engine.changes.latest(),
          send: (logged) => write(frame(logged)),
          keepAlive: () => write(': keep-alive\n\n'),
          end,
        };
        for (const logged of engine.changes.afterIn(sid, since)) if (matches(logged.event)) write(frame(logged));
        stop = hub.add(stream);
      },
      cancel() {
        stop();
      },
    });
    event.req.signal?.addEventListener('abort', () => stop(), { once: true });
    return new Response(body, { headers });
  }
}

function frame(logged: LoggedEvent): string {
  return `id: ${logged.id}\nevent: ${logged.event}\ndata: ${envelopeOf(logged)}\n\n`;
}
