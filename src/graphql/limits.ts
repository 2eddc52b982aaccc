import {
  GraphQLError,
  getNamedType,
  getNullableType,
  isListType,
  isObjectType,
  Kind,
  type FieldNode,
  type GraphQLObjectType,
  type SelectionSetNode,
  type ValidationRule,
} from 'graphql';

/**
 * What one request may ask for, checked while validating, so before anything runs. Depth counts
 * nested fields (contract section 9: deeper than 10 is refused). Cost estimates the records a
 * query may resolve: a list counts its `limit` (10 by default for a collection's page, 20 for a
 * relation without one) times what each item asks for; a relation's records are read in one
 * batched statement, but they are still parsed and sent. Introspection (GraphiQL's schema query,
 * whose type references nest about 12 deep) costs nothing and has its own depth bound.
 */
export const queryLimits = { depth: 10, introspectionDepth: 16, cost: 50_000, aliases: 50, selections: 2_000 };
const defaultPage = 10;
const relationGuess = 20;
const maxLimit = 100;

/** The `limit` arguments whose value the cost estimate reads. */
export const limitArguments = ['limit', '_limit'];

/** A `limit` value as the cost estimate counts it (1-100), or undefined when it is not a number (variable coercion refuses it later). */
export const limitValue = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) ? Math.min(Math.max(1, value), maxLimit) : undefined;

type Variables = Readonly<Record<string, unknown>> | null | undefined;

export function createLimitRule(variables: Variables): ValidationRule {
  return (context) => ({
    OperationDefinition(operation) {
      const schema = context.getSchema();
      const root = operation.operation === 'mutation' ? schema.getMutationType() : operation.operation === 'query' ? schema.getQueryType() : undefined;
      const state = { tooDeep: false, aliases: 0, selections: 0 };

      const limitOf = (field: FieldNode): number | undefined => {
        for (const name of limitArguments) {
          const value = field.arguments?.find((a) => a.name.value === name)?.value;
          const n = value?.kind === Kind.INT ? limitValue(Number(value.value)) : value?.kind === Kind.VARIABLE ? limitValue(variables?.[value.name.value]) : undefined;
          if (n !== undefined) return n;
        }
        return undefined;
      };

      /** The cost of a selection set; stops descending past the bounds (which also ends fragment cycles). */
      const walk = (set: SelectionSetNode, parent: GraphQLObjectType | undefined, level: number, introspection: boolean, fragments: Set<string>): number => {
        let cost = 0;
        for (const selection of set.selections) {
          if (++state.selections > queryLimits.selections) return cost;
          if (selection.kind === Kind.FRAGMENT_SPREAD) {
            const name = selection.name.value;
            const fragment = context.getFragment(name);
            if (!fragment || fragments.has(name)) continue;
            const type = schema.getType(fragment.typeCondition.name.value);
            cost += walk(fragment.selectionSet, isObjectType(type) ? type : parent, level, introspection, new Set([...fragments, name]));
            continue;
          }
          if (selection.kind === Kind.INLINE_FRAGMENT) {
            const type = selection.typeCondition ? schema.getType(selection.typeCondition.name.value) : parent;
            cost += walk(selection.selectionSet, isObjectType(type) ? type : parent, level, introspection, fragments);
            continue;
          }
          if (selection.alias) state.aliases++;
          const inIntrospection = introspection || selection.name.value.startsWith('__');
          if (level > (inIntrospection ? queryLimits.introspectionDepth : queryLimits.depth)) {
            state.tooDeep = true;
            continue;
          }
          const type = parent?.getFields()[selection.name.value]?.type;
          const named = type && getNamedType(type);
          if (!selection.selectionSet || !isObjectType(named)) continue;
          const inner = walk(selection.selectionSet, named, level + 1, inIntrospection, fragments);
          if (inIntrospection) continue;
          const isPage = parent?.name.endsWith('Page') && 'pagination' in parent.getFields();
          const multiplier = isListType(getNullableType(type)) ? (isPage ? 1 : (limitOf(selection) ?? relationGuess)) : named.name.endsWith('Page') ? (limitOf(selection) ?? defaultPage) : 1;
          cost += multiplier * (1 + inner);
        }
        return cost;
      };

      const cost = walk(operation.selectionSet, root ?? undefined, 1, false, new Set());
      const refuse = (message: string, code: string) => context.reportError(new GraphQLError(message, { nodes: operation, extensions: { code } }));
      if (state.tooDeep) refuse(`the query nests deeper than ${queryLimits.depth} levels`, 'QUERY_TOO_DEEP');
      if (state.aliases > queryLimits.aliases) refuse(`the query uses more than ${queryLimits.aliases} aliases`, 'TOO_MANY_ALIASES');
      if (state.selections > queryLimits.selections) refuse(`the query selects more than ${queryLimits.selections} fields (fragments expanded)`, 'QUERY_TOO_COMPLEX');
      else if (cost > queryLimits.cost) {
        refuse(`the query may resolve about ${cost} records, above the ${queryLimits.cost} allowed: ask for smaller pages or fewer nested lists`, 'QUERY_TOO_COMPLEX');
      }
    },
  });
}
