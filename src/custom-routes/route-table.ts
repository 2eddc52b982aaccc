import { decodeSegment, parseRouteKey, shapeOf, RouteKeyError, type RouteKey, type RouteMethod, type Segment } from './route-key.js';
import type { RouteEntry, RouteHandler } from './types.js';

export interface CustomRoute {
  /** The key as the config writes it: `GET /posts/:id/like` (how errors and logs name the route). */
  key: string;
  method: RouteMethod;
  handler: RouteHandler;
  /** Guests may call it under `auth.required`. */
  public: boolean;
  /** The scope a token needs, if the config names one. */
  scope?: string;
}

/** The routes of one path shape, by method. */
interface PathEntry {
  segments: Segment[];
  methods: Map<RouteMethod, CustomRoute & { params: string[] }>;
}

/** What a request path matched: the route of its method, if the path defines one, and the methods it does define. */
export interface RouteMatch {
  route?: CustomRoute;
  params: Record<string, string>;
  /** The methods the path defines, for a 405's `Allow` (HEAD with GET). */
  allow: string[];
}

/**
 * The config's routes, compiled once per config: requests are matched segment by segment, a
 * literal segment before a parameter at the same place, so `GET /users/featured` wins over
 * `GET /users/:id` whichever the config lists first.
 */
export function compileRoutes(routes: Readonly<Record<string, RouteEntry>>): RouteTable {
  const byShape = new Map<string, PathEntry>();
  for (const [key, entryOf] of Object.entries(routes)) {
    const declared = typeof entryOf === 'function' ? { handler: entryOf } : entryOf;
    const handler = declared?.handler;
    if (typeof handler !== 'function') throw new RouteKeyError(key, 'must be a function (request, ctx) => value, or {handler, public?, scope?}');
    const parsed: RouteKey = parseRouteKey(key);
    const shape = shapeOf(parsed);
    const entry = byShape.get(shape) ?? { segments: parsed.segments, methods: new Map() };
    const twin = entry.methods.get(parsed.method);
    if (twin) throw new RouteKeyError(key, `matches the same requests as "${twin.key}"`);
    entry.methods.set(parsed.method, { key, method: parsed.method, handler, public: declared.public === true, scope: declared.scope, params: parsed.segments.flatMap((s) => ('param' in s ? [s.param] : [])) });
    byShape.set(shape, entry);
  }
  const entries = [...byShape.values()].sort((a, b) => compareSpecificity(a.segments, b.segments));
  return new RouteTable(entries);
}

/** Literal segments first, position by position; the order of the config decides nothing. */
function compareSpecificity(a: Segment[], b: Segment[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const rank = Number('param' in a[i]) - Number('param' in b[i]);
    if (rank) return rank;
  }
  return a.length - b.length;
}

export class RouteTable {
  constructor(private readonly entries: PathEntry[]) {}

  get size(): number {
    return this.entries.length;
  }

  /** Matches a path under `/api/v1` (`/posts/1/like`); undefined when no custom route has this path. */
  match(method: string, path: string): RouteMatch | undefined {
    if (!this.entries.length) return undefined;
    const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
    const parts = trimmed === '/' || trimmed === '' ? [] : trimmed.slice(1).split('/');
    for (const entry of this.entries) {
      const values = matchSegments(entry.segments, parts);
      if (!values) continue;
      const own = entry.methods.get((method === 'HEAD' ? 'GET' : method) as RouteMethod);
      const params: Record<string, string> = {};
      if (own) own.params.forEach((name, index) => (params[name] = values[index]));
      const allow = [...entry.methods.keys()].flatMap((m) => (m === 'GET' ? ['GET', 'HEAD'] : [m]));
      return { route: own, params, allow };
    }
    return undefined;
  }
}

/** The decoded values of the parameters, in order; undefined when the path does not match. */
function matchSegments(segments: Segment[], parts: string[]): string[] | undefined {
  if (segments.length !== parts.length) return undefined;
  const values: string[] = [];
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i];
    const decoded = decodeSegment(parts[i]);
    if (decoded === undefined) return undefined;
    if ('param' in segment) {
      if (decoded === '') return undefined;
      values.push(decoded);
    } else if (segment.literal !== decoded) return undefined;
  }
  return values;
}
