/**
 * The public types of custom routes (contract section 19): what `defineConfig` gives a handler's
 * `request` and `ctx`, so an editor completes `ctx.collection('posts').list(...)` and the compiler
 * refuses a wrong call. Types only, importing nothing but the list envelope's own type file
 * (which imports nothing): the package's public declarations must not reach the engine's (and
 * through it better-sqlite3's) types.
 */
import type { Pagination } from '../engine/pagination.js';

/** A record id: an integer for baseline records, `local-<uuid>` for created ones; `"7"` names 7 too. */
export type RecordId = number | string;

/** What every stored record carries (contract section 4). */
export interface StoredRecord {
  id: RecordId;
  /** `"created"` in the sandbox, `"updated"` for a changed baseline record, absent otherwise. */
  _sandbox?: 'created' | 'updated';
}

export interface User extends StoredRecord {
  name: string;
  username: string;
  email: string;
  phone?: string;
  website?: string;
  bio?: string;
  address?: { street?: string; suite?: string; city?: string; zipcode?: string; geo?: { lat?: number; lng?: number } };
  company?: { name?: string; catchPhrase?: string };
}

export interface Post extends StoredRecord {
  user_id: RecordId;
  title: string;
  body: string;
  created_at: string;
}

export interface Comment extends StoredRecord {
  post_id: RecordId;
  name: string;
  email: string;
  body: string;
  created_at: string;
}

export interface Todo extends StoredRecord {
  user_id: RecordId;
  title: string;
  completed: boolean;
  created_at: string;
}

/** The core collections by name, with their records. */
export interface CoreRecords {
  users: User;
  posts: Post;
  comments: Comment;
  todos: Todo;
}

/** A record of a collection the types do not know (config-declared, custom). */
export type AnyRecord = StoredRecord & Record<string, unknown>;

/** The body of a create or replace: the record's fields, without `id` and `_sandbox`; `created_at` is filled in when left out. */
export type RecordInput<R> = R extends AnyRecord ? Record<string, unknown> : Optional<Omit<R, 'id' | '_sandbox'>, 'created_at'>;
/** A JSON merge patch: any subset; `null` clears an optional field. */
export type RecordPatch<R> = R extends AnyRecord ? Record<string, unknown> : { [K in keyof Omit<R, 'id' | '_sandbox'>]?: R[K] | null };
type Optional<T, K extends PropertyKey> = Omit<T, K & keyof T> & Partial<Pick<T, K & keyof T>>;

/** One value of a list parameter; an array repeats it (OR), as `id=1&id=2` does. */
export type ListParamValue = string | number | boolean;

/**
 * The REST list parameters as an object (contract section 5): `{ user_id: 1, _sort: '-created_at', limit: 5 }`.
 * Any other key is a field filter (`completed`, `title_like`, `id_gte`...).
 */
export interface ListQuery {
  page?: number;
  limit?: number;
  cursor?: string;
  q?: string;
  _sort?: string;
  _order?: 'asc' | 'desc';
  _embed?: string;
  _expand?: string;
  [filter: string]: ListParamValue | readonly ListParamValue[] | null | undefined;
}

export type { Pagination };

/** A list page, as `GET /{collection}` answers it. */
export interface ListPage<R> {
  data: R[];
  pagination: Pagination;
}

/**
 * A collection as the caller's sandbox sees it. Same rules, caps, validation, events, webhooks and
 * roles as the REST routes: an error leaves as the problem REST would give (422, 404, 403...).
 */
export interface RouteCollection<R> {
  /** One page, with every REST list parameter. */
  list(query?: ListQuery): Promise<ListPage<R>>;
  /** The record, or `undefined` when this sandbox cannot see it. */
  get(id: RecordId): Promise<R | undefined>;
  create(body: RecordInput<R>): Promise<R>;
  /** JSON merge patch; a record this sandbox cannot see throws the 404 problem. */
  patch(id: RecordId, body: RecordPatch<R>): Promise<R>;
  /** PUT: the whole record; a record this sandbox cannot see throws the 404 problem. */
  replace(id: RecordId, body: RecordInput<R>): Promise<R>;
  /** Deletes the record and returns it as it was; a record this sandbox cannot see throws the 404 problem. */
  remove(id: RecordId): Promise<R>;
}

export type RouteRole = 'admin' | 'editor' | 'viewer' | 'guest';

/** A problem+json error: `throw ctx.problem(409, 'ALREADY_LIKED', 'you liked this post already')`. */
export interface RouteProblem extends Error {
  readonly status: number;
  readonly code: string;
}

/** The second argument of a custom route's handler. */
export interface RouteContext {
  /** The `:params` of the route's path, decoded. */
  params: Record<string, string>;
  query: URLSearchParams;
  /** The caller's sandbox id (reading it gives a first-time visitor its cookie). */
  readonly sandbox: string;
  /** The account of the Bearer token (as `GET /auth/me` shows it); undefined without a token. */
  readonly user?: Record<string, unknown>;
  /** The token's role; undefined without a token. */
  readonly role?: RouteRole;
  /** The engine bound to the caller's sandbox. */
  collection<N extends keyof CoreRecords>(name: N): RouteCollection<CoreRecords[N]>;
  collection(name: string): RouteCollection<AnyRecord>;
  /** A problem to throw: status 400-599, an upper-snake code, a sentence for people. */
  problem(status: number, code: string, detail: string): RouteProblem;
}

/**
 * A custom route (contract section 19): `request` is the standard Fetch Request (its body under
 * `limits.bodyBytes`; `request.json()` on malformed JSON answers 400 INVALID_JSON). A value
 * answers 200 JSON, `undefined` 204, a `Response` is sent as it is.
 */
export type RouteHandler = (request: Request, ctx: RouteContext) => unknown;

/**
 * A custom route with what it declares about its callers (contract section 19): under
 * `auth.required` a guest (no token) may call it only when it is `public`; a token needs `scope`
 * when one is named (`'stats:read'`). A bare handler is neither public nor scoped: any token, or
 * the owner, may call it.
 */
export interface RouteDeclaration {
  handler: RouteHandler;
  public?: boolean;
  scope?: string;
}

/** What the config's `routes` maps a key to: a handler, or a handler with its access. */
export type RouteEntry = RouteHandler | RouteDeclaration;

