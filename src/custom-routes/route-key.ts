/**
 * The keys of the config's `routes` (contract section 19): `"METHOD /path/:param"`, the path under
 * `/api/v1`. Parsed once when the config loads, so a malformed key is a config error naming it
 * rather than a route that never matches.
 */

export const routeMethods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type RouteMethod = (typeof routeMethods)[number];

/** A path segment: literal text, or a `:param` that matches any one segment. */
export type Segment = { literal: string } | { param: string };

export interface RouteKey {
  method: RouteMethod;
  /** The path as written, without a trailing slash: `/posts/:id/like`. */
  path: string;
  segments: Segment[];
}

const paramName = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** What a literal segment may hold: RFC 3986 path characters, `%`-escapes included. */
const literalText = /^[A-Za-z0-9\-._~!$&'()*+,;=@%]+$/;

/** Parses a key; throws RouteKeyError saying what is wrong with it. */
export function parseRouteKey(key: string): RouteKey {
  const match = /^([A-Z]+) (\/\S*)$/.exec(key);
  const method = match?.[1] as RouteMethod;
  if (!match || !routeMethods.includes(method)) {
    throw new RouteKeyError(key, `is not a route such as "GET /users/:id" (${routeMethods.join(', ')}, one space, a path starting with /)`);
  }
  const path = match[2].length > 1 ? match[2].replace(/\/$/, '') : match[2];
  if (path === '/api/v1' || path.startsWith('/api/v1/')) {
    throw new RouteKeyError(key, `names a path under /api/v1 already: write "${method} ${path.slice('/api/v1'.length) || '/'}"`);
  }
  const segments: Segment[] = [];
  const seen = new Set<string>();
  for (const part of path === '/' ? [] : path.slice(1).split('/')) {
    if (part.startsWith(':')) {
      const name = part.slice(1);
      if (!paramName.test(name)) throw new RouteKeyError(key, `has the parameter "${part}"; a parameter is ":" and a name of letters, digits and _`);
      if (seen.has(name)) throw new RouteKeyError(key, `names the parameter :${name} twice`);
      seen.add(name);
      segments.push({ param: name });
    } else {
      if (!literalText.test(part)) throw new RouteKeyError(key, part ? `has the segment "${part}", which a URL path cannot hold as it is` : 'has an empty segment (//)');
      segments.push({ literal: decodeSegment(part) ?? part });
    }
  }
  return { method, path, segments };
}

/** The shape two keys share when they would match the same requests: `/posts/:id` and `/posts/:slug` both are `/posts/:`. */
export function shapeOf(key: RouteKey): string {
  return key.segments.map((s) => ('param' in s ? ':' : s.literal)).join('/');
}

/** A segment's `%`-escapes decoded; undefined for a malformed escape. */
export function decodeSegment(segment: string): string | undefined {
  if (!segment.includes('%')) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

export class RouteKeyError extends Error {
  override name = 'RouteKeyError';
  constructor(
    readonly key: string,
    reason: string,
  ) {
    super(`routes: ${JSON.stringify(key)} ${reason}`);
  }
}
