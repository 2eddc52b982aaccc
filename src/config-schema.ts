import { Type, type Static } from '@sinclair/typebox';
import { Ajv, type ErrorObject } from 'ajv';
import { coreCollections } from './collections/registry.js';
import { reservedCollectionNames } from './collections/declared.js';
import { parseDuration } from './duration.js';
import { compileRoutes } from './custom-routes/route-table.js';
import { parseRouteKey } from './custom-routes/route-key.js';
import type { RouteEntry, RouteHandler } from './custom-routes/types.js';

export type { RouteContext, RouteDeclaration, RouteEntry, RouteHandler } from './custom-routes/types.js';

/**
 * The one schema of `mockapi.config.ts` (contract section 2): it is both the TypeScript type a
 * user writes (`MockapiConfig`, what `defineConfig` checks in the editor) and the JSON Schema the
 * loaded file is validated with, so the two cannot drift apart. Keys of features that are not
 * built yet are here too, so that a typo in them is caught today.
 *
 * Message hints live in the schema as annotations: `x-expect` says what a value must be where
 * the schema alone would word it badly (a pattern), `x-key` what a key of a map must look like.
 */

/** A whole number, at least `minimum`. */
const count = (minimum = 0) => Type.Integer({ minimum });
/** Seconds (a number) or a duration string such as `"30m"`, as src/duration.ts reads them. */
const duration = () => Type.Unsafe<number | string>({ 'x-duration': true });
const text = () => Type.String({ minLength: 1 });
const strings = () => Type.Array(Type.String(), { 'x-expect': 'an array of strings' });
/** An object that refuses keys it does not declare (every object of the config does). */
const closed = <T extends Parameters<typeof Type.Object>[0]>(properties: T) => Type.Object(properties, { additionalProperties: false });

const collectionName = '^[a-z][a-z0-9_-]{0,63}$';
const coreNames = coreCollections.map((c) => c.name);
/**
 * A config-declared collection may not take a core collection's name (contract section 10), nor
 * a core singular (GraphQL's `user(id)`) or a path served beside the collections (`auth`, `custom`...).
 */
const takenNames = [...coreNames, ...coreCollections.map((c) => c.singular), ...reservedCollectionNames];
const extraCollectionName = `^(?!(?:${takenNames.join('|')})$)[a-z][a-z0-9_-]{0,63}$`;

const collectionSchema = closed({
  /** JSON array of records with integer ids, relative to the config file. */
  fixture: text(),
  /** JSON Schema of a record; validates writes. */
  schema: Type.Optional(Type.Unsafe<Record<string, unknown>>({ type: 'object', 'x-expect': 'a JSON Schema object' })),
  /** Text fields searched by `q` (default: every top-level string field). */
  search: Type.Optional(strings()),
  relations: Type.Optional(
    Type.Record(Type.String({ pattern: collectionName }), closed({ belongsTo: text(), key: text() }), {
      additionalProperties: false,
      'x-key': 'a relation name of lowercase letters, digits, _ and -',
    }),
  ),
});

const personaSchema = closed({
  email: Type.Optional(text()),
  name: Type.Optional(text()),
  password: Type.Optional(text()),
  role: Type.Optional(Type.Union([Type.Literal('admin'), Type.Literal('editor'), Type.Literal('viewer'), Type.Literal('guest')])),
  /** Space-separated like the token's `scope` claim, or an array. */
  scopes: Type.Optional(Type.Union([Type.String(), strings()])),
});

const subscriptionSchema = Type.Object(
  {
    url: Type.String({ pattern: '^https?://', 'x-expect': 'an http(s) URL' }),
    events: Type.Array(text(), { minItems: 1, 'x-expect': 'a non-empty array of event patterns' }),
    secret: Type.Optional(text()),
    signature: Type.Optional(Type.Union([Type.Literal('timestamped'), Type.Literal('sha256'), Type.Literal('standard')])),
  },
  { additionalProperties: false },
);

const latencyPart = String.raw`\d+(?:\.\d+)?(?:ms|s)?`;

/** Keys the schema accepts that nothing reads yet; the docs leave them out until their feature exists. */
export const unusedLimits = ['telemetryPerSandbox', 'fileBytes', 'sandboxFileBytes', 'filesPerSandbox'] as const;

export const configSchema = Type.Object(
  {
    port: Type.Optional(Type.Integer({ minimum: 0, maximum: 65535 })),
    host: Type.Optional(text()),
    /** SQLite file; `:memory:` keeps nothing. */
    db: Type.Optional(text()),
    /** Folder holding `<collection>.json` baseline files. */
    fixtures: Type.Optional(text()),
    /** Extra baseline collections served at `/api/v1/{name}` (contract section 10). */
    collections: Type.Optional(
      Type.Record(Type.String({ pattern: extraCollectionName }), collectionSchema, {
        additionalProperties: false,
        'x-key': `a collection name of lowercase letters, digits, _ and - (starting with a letter, at most 64) other than ${takenNames.join(', ')}`,
      }),
    ),
    auth: Type.Optional(
      closed({
        secret: Type.Optional(text()),
        password: Type.Optional(text()),
        accessTtl: Type.Optional(duration()),
        refreshTtl: Type.Optional(duration()),
        required: Type.Optional(Type.Boolean()),
        clockTolerance: Type.Optional(duration()),
        /** The page the password-reset mail links to (`?token=` is added): a front-end's own, or the mock's `/reset-password`. */
        resetUrl: Type.Optional(Type.String({ pattern: '^(https?://|/)', 'x-expect': 'an http(s) URL or a path starting with /' })),
        /** Personas to add or change beside admin, editor and viewer, keyed by username. */
        personas: Type.Optional(Type.Record(Type.String({ pattern: '^\\S+$' }), personaSchema, { additionalProperties: false, 'x-key': 'a username' })),
      }),
    ),
    limits: Type.Optional(
      closed({
        createdPerCollection: Type.Optional(count()),
        maxPageSize: Type.Optional(count(1)),
        bodyBytes: Type.Optional(count()),
        customCollections: Type.Optional(count()),
        customRecords: Type.Optional(count()),
        sandboxTtl: Type.Optional(duration()),
        maxSandboxes: Type.Optional(count()),
        activity: Type.Optional(count()),
        /** UTF-8 bytes of record JSON a sandbox stores, overlay and snapshots; 0: no bound. */
        sandboxBytes: Type.Optional(count()),
        eventsPerSandbox: Type.Optional(count()),
        // Accepted but unused (unusedLimits): limits of files and telemetry, which do not exist yet.
        // The first published example config set them, so refusing them would break such configs.
        telemetryPerSandbox: Type.Optional(count()),
        fileBytes: Type.Optional(count()),
        sandboxFileBytes: Type.Optional(count()),
        filesPerSandbox: Type.Optional(count()),
      }),
    ),
    webhooks: Type.Optional(
      closed({
        timeoutMs: Type.Optional(count(1)),
        attempts: Type.Optional(count(1)),
        backoffMs: Type.Optional(count()),
        allowHosts: Type.Optional(strings()),
        subscriptions: Type.Optional(Type.Array(subscriptionSchema, { 'x-expect': 'an array of subscriptions' })),
      }),
    ),
    simulate: Type.Optional(
      closed({
        /** Milliseconds, `"250ms"`, `"1s"` or a random range `"100-400"` (contract section 11). */
        latency: Type.Optional(
          Type.Union([Type.Number({ minimum: 0 }), Type.String({ pattern: `^${latencyPart}(?:-${latencyPart})?$` })], {
            'x-expect': 'milliseconds, a duration such as "250ms" or "1s", or a range such as "100-400"',
          }),
        ),
        rateLimit: Type.Optional(Type.String({ pattern: '^\\d+/\\d*(?:ms|s|m|h)?$', 'x-expect': 'requests per window such as "5/10s"' })),
      }),
    ),
    cors: Type.Optional(
      closed({
        origins: Type.Optional(
          Type.Union([Type.String({ pattern: originPattern() }), Type.Array(Type.String({ pattern: originPattern() }))], {
            'x-expect': '"*", an origin such as "http://localhost:3000", or an array of origins',
          }),
        ),
      }),
    ),
    /**
     * Custom routes (contract section 19): `"METHOD /path/:param"` → handler. The keys are checked
     * by their parser (`custom-routes/route-key.ts`), which words what is wrong with each.
     */
    routes: Type.Optional(
      Type.Record(
        Type.String(),
        Type.Union(
          [
            Type.Unsafe<RouteHandler>({ 'x-function': true }),
            closed({
              handler: Type.Unsafe<RouteHandler>({ 'x-function': true }),
              public: Type.Optional(Type.Boolean()),
              scope: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_.*-]+:[A-Za-z0-9_.*-]+$' })),
            }),
          ],
          { 'x-expect': "a handler (request, ctx) => value, or { handler, public?: boolean, scope?: 'stats:read' }" },
        ),
      ),
    ),
  },
  { additionalProperties: false },
);

/** What a user may write in `mockapi.config.ts`: every key optional (contract section 2). */
export type MockapiConfig = Static<typeof configSchema>;

function originPattern(): string {
  return '^(\\*|[A-Za-z][A-Za-z0-9+.-]*://[^/\\s?#]+/?)$';
}

const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true, verbose: true });
ajv.addVocabulary(['x-expect', 'x-key']);
ajv.addKeyword({ keyword: 'x-duration', schemaType: 'boolean', validate: (_: boolean, data: unknown) => parseDuration(data) !== undefined });
ajv.addKeyword({ keyword: 'x-function', schemaType: 'boolean', validate: (_: boolean, data: unknown) => typeof data === 'function' });
const validate = ajv.compile(configSchema);

/**
 * Checks a loaded config object against the schema. Returns one readable sentence per problem
 * (at most `max`, in the schema's order), naming the key by its path and quoting the value;
 * an empty array when the config is valid.
 */
export function configProblems(config: unknown, max = 3): string[] {
  if (typeof config !== 'object' || config === null || Array.isArray(config)) {
    return [`the config must be an object, got ${quote(config)}`];
  }
  // c12 has already merged `$test`, `$development`, `$env`... overrides for NODE_ENV into the rest.
  const own = Object.fromEntries(Object.entries(config).filter(([key]) => !key.startsWith('$')));
  const problems = validate(own) ? [] : schemaProblems(validate.errors ?? []);
  return [...problems, ...routeProblems(own.routes, problems.length > 0)].slice(0, max);
}

/** What is wrong with the keys of `routes` (the schema checked the values are functions). */
function routeProblems(routes: unknown, othersFound: boolean): string[] {
  if (typeof routes !== 'object' || routes === null || Array.isArray(routes)) return [];
  const problems: string[] = [];
  for (const key of Object.keys(routes)) {
    try {
      parseRouteKey(key);
    } catch (error) {
      problems.push((error as Error).message);
    }
  }
  // Two keys for the same requests (`GET /a/:id` and `GET /a/:slug`): only once each key parses.
  if (!problems.length && !othersFound) {
    try {
      compileRoutes(routes as Record<string, RouteEntry>);
    } catch (error) {
      problems.push((error as Error).message);
    }
  }
  return problems;
}

function schemaProblems(errors: ErrorObject[]): string[] {
  // A union is worded once, as a whole, rather than once per branch that did not match.
  const unions = errors.filter((e) => e.keyword === 'anyOf').map((e) => `${e.schemaPath}/`);
  const messages = new Map<string, string>();
  for (const error of errors) {
    if (unions.some((union) => error.schemaPath.startsWith(union))) continue;
    const at = parsePointer(error.instancePath);
    const [path, message] = describeError(error, at);
    if (!messages.has(path)) messages.set(path, message);
  }
  return [...messages.values()];
}

function describeError(error: ErrorObject, at: string[]): [string, string] {
  const schema = (error.parentSchema ?? {}) as Record<string, unknown>;
  if (error.keyword === 'additionalProperties') {
    const key = String(error.params.additionalProperty);
    const path = formatPath([...at, key]);
    const known = schema.properties ? Object.keys(schema.properties) : undefined;
    if (!known) return [path, `${formatPath(at)}: ${JSON.stringify(key)} is not ${String(schema['x-key'] ?? 'a valid key')}`];
    const guess = didYouMean(key, known);
    const hint = guess === undefined ? '' : ` (did you mean ${JSON.stringify(formatPath([...at, guess]))}?)`;
    return [path, `unknown key ${JSON.stringify(path)}${at.length ? '' : ' in the config'}${hint}`];
  }
  if (error.keyword === 'required') {
    const path = formatPath([...at, String(error.params.missingProperty)]);
    return [path, `${path} is required`];
  }
  const path = formatPath(at);
  return [path, `${path || 'the config'} must be ${describeSchema(schema)}, got ${quote(error.data)}`];
}

/** What a value of `schema` must be, in words: "an integer from 0 to 65535". */
export function describeSchema(schema: Record<string, unknown>): string {
  if (typeof schema['x-expect'] === 'string') return schema['x-expect'];
  if (schema['x-duration']) return 'seconds or a duration such as "30m"';
  if (schema['x-function']) return 'a function';
  if (Array.isArray(schema.anyOf)) {
    const options = schema.anyOf as Record<string, unknown>[];
    if (options.every((option) => 'const' in option)) return `one of ${options.map((option) => JSON.stringify(option.const)).join(', ')}`;
    return options.map(describeSchema).join(' or ');
  }
  if ('const' in schema) return JSON.stringify(schema.const);
  const { minimum, maximum } = schema as { minimum?: number; maximum?: number };
  switch (schema.type) {
    case 'integer':
      if (minimum !== undefined && maximum !== undefined) return `an integer from ${minimum} to ${maximum}`;
      if (minimum === 0) return 'a whole number';
      return minimum === undefined ? 'an integer' : `an integer of at least ${minimum}`;
    case 'number':
      return minimum === 0 ? 'a number of at least 0' : 'a number';
    case 'string':
      return schema.minLength ? 'a non-empty string' : 'a string';
    case 'boolean':
      return 'true or false';
    case 'array':
      return 'an array';
    case 'object':
      return 'an object';
    default:
      return 'valid';
  }
}

/** The closest of `candidates` to a mistyped `word`, if one is close enough to be a typo. */
export function didYouMean(word: string, candidates: readonly string[]): string | undefined {
  const bound = Math.max(1, Math.floor(word.length / 3));
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const distance = editDistance(word.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  return bestDistance <= bound ? best : undefined;
}

/** Optimal string alignment distance: insertions, deletions, substitutions and swaps of neighbours cost 1. */
export function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      rows[i][j] = Math.min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) rows[i][j] = Math.min(rows[i][j], rows[i - 2][j - 2] + 1);
    }
  }
  return rows[a.length][b.length];
}

/** `limits.sandboxTtl`, `routes["GET /x"]`, `webhooks.subscriptions[0].url`. */
export function formatPath(segments: readonly string[]): string {
  return segments
    .map((segment, index) => {
      if (/^\d+$/.test(segment)) return `[${segment}]`;
      if (/^[A-Za-z_$][\w$]*$/.test(segment)) return index === 0 ? segment : `.${segment}`;
      return `[${JSON.stringify(segment)}]`;
    })
    .join('');
}

/** A value as a message quotes it: strings in JSON quotes, long ones cut. */
export function quote(value: unknown): string {
  if (typeof value === 'function') return 'a function';
  if (value === undefined || typeof value === 'bigint' || typeof value === 'symbol') return String(value);
  if (typeof value === 'number') return String(value);
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function parsePointer(pointer: string): string[] {
  if (!pointer) return [];
  return pointer
    .slice(1)
    .split('/')
    .map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'));
}

