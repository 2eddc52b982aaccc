import type { ErrorObject } from 'ajv';
import { validateConfig } from './config-validator.js';
import { compileRoutes } from './custom-routes/route-table.js';
import { parseRouteKey } from './custom-routes/route-key.js';
import type { RouteEntry } from './custom-routes/types.js';

// What is wrong with a loaded config, in sentences. Apart from src/config-schema.ts (the schema,
// built with typebox) so that loading a config needs neither typebox nor ajv: the validator is
// generated at build time (src/config-validator.ts).


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
  const errors = validateConfig(own);
  const problems = errors.length ? schemaProblems(errors) : [];
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

