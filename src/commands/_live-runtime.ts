import type { IncomingMessage, ServerResponse } from 'node:http';
import { createNodeHandlers } from '../app.js';
import type { ResolvedConfig } from '../config.js';
import { createRuntime, type Runtime } from '../runtime.js';

/**
 * A replaced runtime closes when the requests it was answering have ended, or after this long
 * (a custom route that never answers must not keep the old database open forever; simulated
 * latency is at most 30 s).
 */
const retireGraceMs = 60_000;

/** One runtime, the app over it, and how much of its requests is still running. */
interface Generation {
  runtime: Runtime;
  /** A plain read answered at once (`http/plain-reads.ts`: nothing of it runs later), or false. */
  plain: (req: IncomingMessage, res: ServerResponse) => boolean;
  handle: (req: IncomingMessage, res: ServerResponse) => unknown;
  /**
   * Two per running request: one until its handler settles, one until its response closes (a
   * streamed body outlives the handler; a handler may go on past a client's abort).
   */
  open: number;
  /** Ends one of the two; shared by every request of the generation (no closure per request). */
  done: () => void;
  /** Set once replaced: closes the runtime when its last request ends. */
  onIdle?: () => void;
}

/**
 * The one indirection between the HTTP server and the runtime (STYLE.md, "One config, swapped
 * whole"): `runtime.reconfigure` swaps in a whole new runtime and app here when the config's
 * `collections` change, since stores, search statements and the GraphQL schema are built from
 * them. Each request is answered by the runtime that was current when it arrived; a replaced one
 * closes once its requests have ended, so a request in flight (a GraphQL resolver or a body read
 * past an await) never finds its database closed.
 */
export interface LiveRuntime {
  readonly current: Runtime;
  /** What the HTTP server serves (a plain function: it reads no `this`). */
  handler(req: IncomingMessage, res: ServerResponse): void;
  /**
   * Builds a runtime and app from `config` on the same database file and makes them current.
   * Throws, and keeps the current one, when they cannot be built (a broken fixture).
   */
  replace(config: ResolvedConfig): Promise<Runtime>;
  /** Closes the current runtime and every replaced one still waiting for its requests. */
  close(): void;
}

export function liveRuntime(first: Runtime): LiveRuntime {
  let current = generationOf(first);
  const retiring = new Set<Generation>();

  const retire = (old: Generation) => {
    retiring.add(old);
    // Stopped in the turn the new runtime was made, before its dispatcher's first scan: two
    // dispatchers would send the same pending deliveries twice.
    old.runtime.webhooks.stop();
    // A stream never ends by itself; its client reconnects (with Last-Event-ID) to the new runtime.
    old.runtime.streams.closeAll();
    const timer = setTimeout(() => close(), retireGraceMs);
    timer.unref();
    const close = () => {
      if (!retiring.delete(old)) return;
      clearTimeout(timer);
      old.runtime.close();
    };
    old.onIdle = close;
    if (old.open === 0) close();
  };

  const live: LiveRuntime = {
    get current() {
      return current.runtime;
    },
    handler(req, res) {
      const generation = current;
      // Answered and done within this call: nothing of the runtime is used after it returns.
      if (generation.plain(req, res)) return;
      const { done } = generation;
      generation.open += 2;
      res.on('close', done);
      try {
        Promise.resolve(generation.handle(req, res)).then(done, done);
      } catch {
        done();
      }
    },
    async replace(config) {
      let next: Generation;
      try {
        // Its own `reconfigure` swaps it in turn when `collections` change again.
        const runtime = await createRuntime(config, { rebuild: (later) => live.replace(later) });
        try {
          next = generationOf(runtime);
        } catch (error) {
          runtime.close();
          throw error;
        }
      } catch (error) {
        restoreFile(current.runtime);
        throw error;
      }
      const { runtime } = next;
      // The server did not restart: /health's uptime goes on.
      runtime.startedAt = current.runtime.startedAt;
      const old = current;
      current = next;
      retire(old);
      return runtime;
    },
    close() {
      for (const old of [...retiring]) old.onIdle?.();
      current.runtime.close();
    },
  };
  return live;
}

/**
 * A runtime that failed to build may have left the shared file's search index (built when the
 * engine is made) or its baseline (loaded next) made for its collections: they go back to the
 * served ones, which are built again only when their fingerprint or hash differs.
 */
function restoreFile(runtime: Runtime): void {
  try {
    runtime.engine.search.ensureBuilt();
    runtime.reloadBaseline();
  } catch {
    // Busy, or a served fixture broke meanwhile: the next reload tries again.
  }
}

function generationOf(runtime: Runtime): Generation {
  const { plain, h3 } = createNodeHandlers(runtime);
  const generation: Generation = {
    runtime,
    plain,
    handle: h3,
    open: 0,
    done: () => {
      if (--generation.open === 0) generation.onIdle?.();
    },
  };
  return generation;
}
