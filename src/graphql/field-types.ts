import {
  GraphQLBoolean,
  GraphQLFloat,
  GraphQLID,
  GraphQLInputObjectType,
  GraphQLInt,
  GraphQLObjectType,
  GraphQLScalarType,
  GraphQLString,
  valueFromASTUntyped,
  type GraphQLInputType,
  type GraphQLOutputType,
} from 'graphql';
import type { JsonSchema } from '../engine/definition.js';

/** Any JSON value: for field shapes GraphQL types cannot say (arrays, free objects of a config collection). */
export const JsonScalar = new GraphQLScalarType({
  name: 'JSON',
  description: 'Any JSON value, as stored.',
  serialize: (value) => value,
  parseValue: (value) => value,
  parseLiteral: (ast, variables) => valueFromASTUntyped(ast, variables),
});

/** GraphQL names are `[_A-Za-z][_0-9A-Za-z]*`, and `__` is reserved for introspection. */
export const isGraphQLName = (name: string) => /^[_A-Za-z][_0-9A-Za-z]*$/.test(name) && !name.startsWith('__');

export const pascal = (name: string) =>
  name
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');

/** `user_id` → `userId`: the seed's camel-case aliases of snake-case fields. */
export const camel = (name: string) => name.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());

const scalarOf = (schema: JsonSchema) => {
  if (schema['x-record-id']) return GraphQLID;
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  switch (type) {
    case 'string':
      return GraphQLString;
    case 'integer':
      return GraphQLInt;
    case 'number':
      return GraphQLFloat;
    case 'boolean':
      return GraphQLBoolean;
    default:
      return undefined;
  }
};

const isObject = (schema: JsonSchema) => schema.type === 'object' && schema.properties && Object.keys(schema.properties).length > 0;

/**
 * Output and input types of a collection's fields, derived from their JSON Schema (the same
 * definitions REST validates with, so the two cannot drift): nested objects become their own
 * types (`UserAddress`, `UserAddressInput`), anything GraphQL cannot type is `JSON`.
 */
export function createFieldTypes() {
  const outputs = new Map<string, GraphQLObjectType>();
  const inputs = new Map<string, GraphQLInputObjectType>();

  const properties = (schema: JsonSchema) => Object.entries(schema.properties ?? {}).filter(([name]) => isGraphQLName(name));

  function output(typeName: string, schema: JsonSchema): GraphQLOutputType {
    const scalar = scalarOf(schema);
    if (scalar) return scalar;
    if (!isObject(schema)) return JsonScalar;
    let type = outputs.get(typeName);
    if (!type) {
      type = new GraphQLObjectType({
        name: typeName,
        fields: () => Object.fromEntries(properties(schema).map(([name, field]) => [name, { type: output(typeName + pascal(name), field) }])),
      });
      outputs.set(typeName, type);
    }
    return type;
  }

  function input(typeName: string, schema: JsonSchema): GraphQLInputType {
    const scalar = scalarOf(schema);
    if (scalar) return scalar;
    if (!isObject(schema)) return JsonScalar;
    let type = inputs.get(typeName);
    if (!type) {
      type = new GraphQLInputObjectType({
        name: `${typeName}Input`,
        fields: () => Object.fromEntries(properties(schema).map(([name, field]) => [name, { type: input(typeName + pascal(name), field) }])),
      });
      inputs.set(typeName, type);
    }
    return type;
  }

  return { output, input };
}
