/** A JSON Schema (2020-12, as OpenAPI 3.1 uses it) or any other OpenAPI object, as plain JSON. */
export type Schema = Record<string, unknown>;

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** A parameter object (`in: query | header | path`). */
export type Parameter = Schema & { name: string; in: 'query' | 'header' | 'path' };

/**
 * One entry of the route catalogue: an operation the server answers, keyed by method and path.
 * `route` is the pattern the h3 router matches (`/api/v1/:collection/:id`), so the completeness
 * test can hold the catalogue against the router; `path` is the OpenAPI template it documents
 * (`/api/v1/posts/{id}`), one per collection where the router has one generic pattern.
 */
export interface RouteDoc {
  method: HttpMethod;
  path: string;
  /** The router's pattern; `custom-route` for the config's routes (a middleware, not the router). */
  route: string;
  operationId: string;
  tag: string;
  summary: string;
  description?: string;
  /**
   * The scopes a Bearer token needs, each entry needed; an entry that is a list is met by any one
   * of its scopes. Absent: open to anyone (health, login, roles...).
   */
  scopes?: (string | readonly string[])[];
  /** Guests (`auth.required` without a token) may call it too. */
  guest?: boolean;
  /** Schemas of the `{params}` in `path`. */
  pathParams?: Record<string, Schema>;
  /** Query and header parameters of this operation. */
  parameters?: (Parameter | Schema)[];
  /** Media type → schema; `undefined` schema: the media type without a schema (custom routes). */
  body?: { required: boolean; description?: string; content: Record<string, Schema | undefined> };
  /** The success answer (200 unless `status`). */
  ok: { status?: number; description: string; content?: Record<string, Schema | undefined>; headers?: Record<string, Schema> };
  /** Problem statuses this operation itself may answer (the request chain's are added for API paths). */
  errors?: number[];
  /** Answers that are not the shared problem of their status (GraphQL's own errors), by status. */
  responses?: Record<string, Schema>;
}

export const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
export const json = (schema: Schema | undefined): Record<string, Schema | undefined> => ({ 'application/json': schema });

/** `Post`, `LineItem`: a component name from a collection's singular (`line-item`). */
export function pascal(name: string): string {
  const words = name.split(/[^A-Za-z0-9]+/).filter(Boolean);
  return words.map((word) => word[0]!.toUpperCase() + word.slice(1)).join('') || 'Record';
}

/** `listPosts`, `getPostUser`: an operationId from words. */
export function camel(...words: string[]): string {
  const [first = '', ...rest] = words.flatMap((word) => word.split(/[^A-Za-z0-9]+/)).filter(Boolean);
  return first.toLowerCase() + rest.map((word) => word[0]!.toUpperCase() + word.slice(1)).join('');
}
