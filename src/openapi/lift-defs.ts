import { pascal, type Schema } from './types.js';

/**
 * A standalone JSON Schema as components: its `$defs` lifted beside it (`#/$defs/webhook` →
 * `#/components/schemas/<prefix>Webhook`), since a `$ref` inside a component resolves against the
 * whole document, not against the schema it came from. `$schema` and `$id` are left out.
 */
export function liftDefs(schema: Schema, name: string, prefix = name): Record<string, Schema> {
  const { $schema: _s, $id: _i, $defs, ...root } = schema as Schema & { $defs?: Record<string, Schema> };
  const nameOf = (def: string) => `${prefix}${pascal(def)}`;
  const relink = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(relink);
    if (typeof value !== 'object' || value === null) return value;
    return Object.fromEntries(
      Object.entries(value).map(([key, inner]) => [
        key,
        key === '$ref' && typeof inner === 'string' ? inner.replace(/^#\/\$defs\/(.+)$/, (_, def: string) => `#/components/schemas/${nameOf(def)}`) : relink(inner),
      ]),
    );
  };
  return { [name]: relink(root) as Schema, ...Object.fromEntries(Object.entries($defs ?? {}).map(([def, inner]) => [nameOf(def), relink(inner) as Schema])) };
}
