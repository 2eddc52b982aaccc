import {
  GraphQLBoolean,
  GraphQLFloat,
  GraphQLID,
  GraphQLInputObjectType,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLSchema,
  GraphQLString,
  type GraphQLFieldConfig,
  type GraphQLFieldConfigArgumentMap,
  type GraphQLInputType,
} from 'graphql';
import type { Json } from '../engine/collection-store.js';
import type { CollectionDefinition } from '../engine/definition.js';
import { scalarFields, type FieldKind, type ListArgs } from '../engine/list-query.js';
import type { GraphQLContext } from './context.js';
import { camel, createFieldTypes, isGraphQLName, pascal } from './field-types.js';

type Args = Record<string, unknown>;
type Field = GraphQLFieldConfig<Json, GraphQLContext, Args>;

const nonNull = <T extends GraphQLInputType>(type: T) => new GraphQLNonNull(type);

const Pagination = new GraphQLObjectType({
  name: 'Pagination',
  fields: {
    page: { type: new GraphQLNonNull(GraphQLInt) },
    limit: { type: new GraphQLNonNull(GraphQLInt) },
    total: { type: new GraphQLNonNull(GraphQLInt) },
    totalPages: { type: new GraphQLNonNull(GraphQLInt) },
    hasNextPage: { type: new GraphQLNonNull(GraphQLBoolean) },
    hasPrevPage: { type: new GraphQLNonNull(GraphQLBoolean) },
    nextCursor: { type: GraphQLString, description: 'Pass as `cursor` for the next page; null on the last page.' },
  },
});

/** The list arguments with their aliases (the seed's REST names); filters come from the definition. */
const paging = { limit: ['limit', '_limit'], page: ['page', '_page'], sort: ['sort', '_sort'], order: ['order', '_order'] } as const;
const reserved = new Set(['limit', '_limit', 'page', '_page', 'sort', '_sort', 'order', '_order', 'q', 'cursor']);
const filterScalars: Record<FieldKind, GraphQLInputType> = { id: GraphQLID, string: GraphQLString, integer: GraphQLInt, number: GraphQLFloat, boolean: GraphQLBoolean, any: GraphQLString };

/** Top-level scalar fields a list filters on by equality (a list of values is OR, as a repeated REST parameter), with camel-case aliases. */
function filterFields(definition: CollectionDefinition): { field: string; names: string[]; type: GraphQLInputType }[] {
  return [...scalarFields(definition)]
    .filter(([field]) => isGraphQLName(field) && !reserved.has(field))
    .map(([field, kind]) => ({ field, names: [...new Set([field, camel(field)])], type: new GraphQLList(nonNull(filterScalars[kind])) }));
}

function listArgs(definition: CollectionDefinition, withCursor: boolean): GraphQLFieldConfigArgumentMap {
  const args: GraphQLFieldConfigArgumentMap = {
    limit: { type: GraphQLInt, description: 'Records per page, 1-100 (default 10).' },
    _limit: { type: GraphQLInt },
    page: { type: GraphQLInt, description: '1-based page.' },
    _page: { type: GraphQLInt },
    sort: { type: GraphQLString, description: 'Field names, comma-separated; a leading - sorts descending (`-created_at,title`).' },
    _sort: { type: GraphQLString },
    order: { type: GraphQLString, description: '`asc` or `desc` (or a comma list matching sort).' },
    _order: { type: GraphQLString },
    q: { type: GraphQLString, description: 'Full-text search: every word must match.' },
  };
  if (withCursor) args.cursor = { type: GraphQLString, description: 'A previous page\'s `pagination.nextCursor`.' };
  for (const { names, type } of filterFields(definition)) for (const name of names) args[name] ??= { type };
  return args;
}

/** GraphQL arguments → the engine's typed list arguments (first alias given wins); undefined when none is given. */
function toListArgs(definition: CollectionDefinition, args: Args): ListArgs | undefined {
  const first = (names: readonly string[]) => names.map((n) => args[n]).find((v) => v !== undefined && v !== null);
  const out: Record<string, unknown> = {};
  let given = false;
  for (const [name, names] of Object.entries(paging)) given = (out[name] = first(names)) !== undefined || given;
  given = (out.q = first(['q'])) !== undefined || given;
  given = (out.cursor = first(['cursor'])) !== undefined || given;
  const filters: Record<string, (string | number | boolean)[]> = {};
  for (const { field, names } of filterFields(definition)) {
    const values = first(names) as (string | number | boolean)[] | undefined;
    if (values !== undefined) filters[field] = values;
  }
  if (Object.keys(filters).length) given = Boolean((out.filters = filters));
  return given ? (out as ListArgs) : undefined;
}

/** Input objects arrive without a prototype; the engine gets plain JSON. */
const plain = (value: unknown) => JSON.parse(JSON.stringify(value)) as Json;

/**
 * The GraphQL schema, derived from the collection definitions (contract section 9): a type per
 * collection with every REST field, list and single queries, relations (batched per request) and
 * create/update/delete mutations, all through the engine bound to the caller's sandbox.
 */
export function buildGraphQLSchema(collections: readonly CollectionDefinition[]): GraphQLSchema {
  const usable = collections.filter((c) => isGraphQLName(c.name) && isGraphQLName(c.singular));
  const byName = new Map(usable.map((c) => [c.name, c]));
  const fieldTypes = createFieldTypes();
  const typeName = (definition: CollectionDefinition) => pascal(definition.singular);
  const recordFields = (definition: CollectionDefinition) => Object.entries(definition.fields).filter(([name]) => isGraphQLName(name));

  const types = new Map<string, GraphQLObjectType>();
  for (const definition of usable) {
    const name = typeName(definition);
    types.set(
      definition.name,
      new GraphQLObjectType<Json, GraphQLContext>({
        name,
        fields: () => {
          const fields: Record<string, Field> = { id: { type: new GraphQLNonNull(GraphQLID) } };
          for (const [field, schema] of recordFields(definition)) fields[field] = { type: fieldTypes.output(name + pascal(field), schema), description: schema.description };
          fields._sandbox = { type: GraphQLString, description: '`created` or `updated` for records this sandbox wrote; absent on untouched baseline records.' };
          for (const relation of definition.relations) {
            const target = byName.get(relation.collection);
            if (!target || !isGraphQLName(relation.name)) continue;
            fields[relation.name] = relation.kind === 'one' ? oneRelation(relation.collection, relation.field, target) : manyRelation(definition, relation.name, relation.key ?? 'id', target);
          }
          return fields;
        },
      }),
    );
  }

  function oneRelation(collection: string, field: string, target: CollectionDefinition): Field {
    return {
      type: types.get(target.name)!,
      resolve: async (record, _args, context) => {
        const id = record[field];
        return id === undefined || id === null ? null : ((await context.loaders.record(collection, id)) ?? null);
      },
    };
  }

  function manyRelation(definition: CollectionDefinition, relation: string, key: string, target: CollectionDefinition): Field {
    return {
      type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(types.get(target.name)!))),
      description: 'Without arguments, every related record; with list arguments, this record\'s page of them.',
      args: listArgs(target, false),
      resolve: (record, args, context) => {
        return context.loaders.children(definition.name, relation, record, key, toListArgs(target, args));
      },
    };
  }

  const query: Record<string, Field> = {};
  const mutation: Record<string, Field> = {};
  for (const definition of usable) {
    const { name } = definition;
    const type = types.get(name)!;
    const Type = typeName(definition);
    const page = new GraphQLObjectType({
      name: `${Type}Page`,
      fields: { data: { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(type))) }, pagination: { type: new GraphQLNonNull(Pagination) } },
    });
    query[name] = {
      type: new GraphQLNonNull(page),
      args: listArgs(definition, true),
      resolve: (_root, args, context) => {
        return context.view.collection(name).find(toListArgs(definition, args) ?? {});
      },
    };
    // A name that is its own singular (a config collection `data`) keeps its list query only.
    query[definition.singular] ??= {
      type,
      args: { id: { type: new GraphQLNonNull(GraphQLID) } },
      resolve: async (_root, args, context) => {
        return (await context.loaders.record(name, args.id)) ?? null;
      },
    };

    const inputFields = (required: boolean) =>
      Object.fromEntries(
        recordFields(definition).map(([field, schema]) => {
          const input = fieldTypes.input(Type + pascal(field), schema);
          return [field, { type: required && definition.required.includes(field) ? nonNull(input) : input }];
        }),
      );
    const create = new GraphQLInputObjectType({ name: `Create${Type}Input`, fields: () => inputFields(true) });
    const update = new GraphQLInputObjectType({
      name: `Update${Type}Input`,
      description: 'A JSON merge patch: fields left out keep their values, null clears an optional field.',
      fields: () => inputFields(false),
    });
    /** A write (the engine authorizes it), then the request's loaders forget what they read: later fields see the change. */
    const write = (run: (args: Args, context: GraphQLContext) => Promise<Json>): Field['resolve'] =>
      async (_root, args, context) => {
        const record = await run(args, context);
        context.loaders.clear();
        return record;
      };
    mutation[`create${Type}`] = {
      type: new GraphQLNonNull(type),
      args: { input: { type: nonNull(create) } },
      resolve: write((args, context) => context.view.collection(name).create(plain(args.input))),
    };
    mutation[`update${Type}`] = {
      type: new GraphQLNonNull(type),
      args: { id: { type: nonNull(GraphQLID) }, input: { type: nonNull(update) } },
      resolve: write((args, context) => context.view.collection(name).patch(args.id, plain(args.input))),
    };
    mutation[`delete${Type}`] = {
      type: new GraphQLNonNull(type),
      description: 'Returns the record as it was.',
      args: { id: { type: nonNull(GraphQLID) } },
      resolve: write((args, context) => context.view.collection(name).remove(args.id)),
    };
  }

  return new GraphQLSchema({
    query: new GraphQLObjectType({ name: 'Query', fields: query }),
    mutation: new GraphQLObjectType({ name: 'Mutation', fields: mutation }),
  });
}
