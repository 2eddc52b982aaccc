import type { Schema } from './types.js';

/** JSON Schema keywords OpenAPI 3.0's schema object does not have: left out (they only narrow). */
const dropped = new Set([
  '$schema',
  '$id',
  '$anchor',
  '$comment',
  '$defs',
  'propertyNames',
  'if',
  'then',
  'else',
  'dependentRequired',
  'dependentSchemas',
  'unevaluatedProperties',
  'unevaluatedItems',
  'prefixItems',
  'patternProperties',
  'contains',
  'minContains',
  'maxContains',
  'contentEncoding',
]);

/**
 * Converts the 3.1 document into OpenAPI 3.0.3 (not a relabelling): type arrays become `type` with
 * `nullable`, or `anyOf` of the types; `const` becomes a one-value `enum`; `examples` the first
 * `example`; a `$ref` with siblings is wrapped in `allOf`; 3.1-only keywords are left out; the root
 * `webhooks` go, kept as Redoc's `x-webhooks`; security requirements of non-OAuth schemes list no
 * scopes (3.0 requires it; `x-scopes` keeps them).
 */
export function toOpenApi30(document: Schema): Schema {
  const { openapi: _o, webhooks, info, paths, components, ...rest } = document as Schema & { info: Schema; paths: Schema; components: Schema };
  const { summary: _s, license, ...restInfo } = info;
  const { identifier: _i, ...restLicense } = (license ?? {}) as Schema;
  const schemas = (components.schemas ?? {}) as Record<string, Schema>;
  const convert = createConverter(schemas);
  return {
    openapi: '3.0.3',
    info: { ...restInfo, ...(license ? { license: restLicense } : {}) },
    ...convert.walk(rest),
    paths: convert.walk(paths),
    ...(webhooks ? { 'x-webhooks': convert.walk(webhooks) } : {}),
    components: {
      ...convert.walk({ ...components, schemas: undefined }),
      schemas: Object.fromEntries(Object.entries(schemas).map(([name, schema]) => [name, convert.schema(schema)])),
    },
  };
}

function createConverter(schemas: Record<string, Schema>) {
  /** A nullable reference needs its target's `type` beside `nullable` in 3.0. */
  const typeOf = (branch: Schema): unknown => branch.type ?? (typeof branch.$ref === 'string' ? schemas[branch.$ref.replace('#/components/schemas/', '')]?.type : undefined);

  /** Walks the parts of the document that are not schemas: each `schema` found is converted, each `security` emptied. */
  function walk<T>(value: T): T {
    if (Array.isArray(value)) return value.map(walk) as T;
    if (typeof value !== 'object' || value === null) return value;
    const out: Schema = {};
    for (const [key, inner] of Object.entries(value as Schema)) {
      if (inner === undefined) continue;
      if (key === 'schema' && typeof inner === 'object' && inner !== null) out[key] = schema(inner as Schema);
      else if (key === 'security' && Array.isArray(inner)) out[key] = withoutScopes(inner as Record<string, string[]>[]);
      else out[key] = walk(inner);
    }
    return out as T;
  }

  function schema(given: Schema): Schema {
    const out: Schema = {};
    let nullable = false;
    for (const [key, value] of Object.entries(given)) {
      if (dropped.has(key)) continue;
      switch (key) {
        case 'type': {
          const types = Array.isArray(value) ? (value as string[]) : [value as string];
          nullable ||= types.includes('null');
          const real = types.filter((t) => t !== 'null');
          if (real.length === 1) out.type = real[0];
          else if (real.length > 1) out.anyOf = real.map((t) => ({ type: t }));
          break;
        }
        case 'required':
          // 3.0 wants at least one name.
          if (Array.isArray(value) && value.length) out.required = value;
          break;
        case 'const':
          out.enum = [value];
          break;
        case 'examples':
          if (Array.isArray(value) && value.length) out.example = value[0];
          break;
        case 'exclusiveMinimum':
        case 'exclusiveMaximum':
          if (typeof value === 'number') {
            out[key === 'exclusiveMinimum' ? 'minimum' : 'maximum'] = value;
            out[key] = true;
          }
          break;
        case 'contentMediaType':
          out.format = 'binary';
          break;
        case 'properties':
          out.properties = Object.fromEntries(Object.entries(value as Record<string, Schema>).map(([name, inner]) => [name, schema(inner)]));
          break;
        case 'items':
        case 'not':
          out[key] = schema(value as Schema);
          break;
        case 'additionalProperties':
          out[key] = typeof value === 'object' && value !== null ? schema(value as Schema) : value;
          break;
        case 'allOf':
        case 'anyOf':
        case 'oneOf': {
          const branches = (value as Schema[]).filter((branch) => !isNull(branch));
          nullable ||= branches.length < (value as Schema[]).length;
          const converted = branches.map(schema);
          if (converted.length === 1 && key !== 'allOf') out.allOf = converted;
          else if (converted.length) out[key] = converted;
          break;
        }
        default:
          out[key] = value;
      }
    }
    if (nullable) {
      const branches = (out.allOf ?? out.anyOf ?? out.oneOf ?? []) as Schema[];
      const types = new Set(branches.map(typeOf));
      const [type] = types;
      if (out.type === undefined && types.size === 1 && typeof type === 'string') out.type = type;
      if (out.type !== undefined) {
        out.nullable = true;
      } else {
        // Branches of several types (a record id: integer or string): null as a branch of its own, 3.0's way.
        delete out.allOf;
        delete out.oneOf;
        out.anyOf = [...branches, { type: 'string', nullable: true, enum: [null] }];
      }
    }
    // 3.0 ignores a $ref's siblings: keep them by wrapping the reference.
    if (typeof out.$ref === 'string' && Object.keys(out).length > 1) {
      const { $ref, allOf, ...siblings } = out;
      return { ...siblings, allOf: [{ $ref }, ...((allOf as Schema[] | undefined) ?? [])] };
    }
    return out;
  }

  return { walk, schema };
}

function withoutScopes(requirements: Record<string, string[]>[]): Record<string, string[]>[] {
  const seen = new Set<string>();
  return requirements
    .map((requirement) => Object.fromEntries(Object.keys(requirement).map((name) => [name, []])))
    .filter((requirement) => {
      const key = Object.keys(requirement).sort().join(',');
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
}

const isNull = (schema: Schema) => schema.type === 'null' && Object.keys(schema).every((key) => key === 'type' || key === 'description');
