import { Type, type Static } from '@sinclair/typebox';
import { coreCollections } from './collections/registry.js';
import { reservedCollectionNames } from './collections/declared.js';
import type { RouteHandler } from './custom-routes/types.js';

export type { RouteContext, RouteDeclaration, RouteEntry, RouteHandler } from './custom-routes/types.js';
export { configProblems, describeSchema, didYouMean, editDistance, formatPath, quote } from './config-problems.js';

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
