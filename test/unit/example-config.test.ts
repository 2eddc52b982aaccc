import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadMockapiConfig, resolveConfig } from '../../src/config.js';
import { configSchema, unusedLimits } from '../../src/config-schema.js';
import { repoRoot } from '../helpers/server.js';

// mockapi.config.example.ts spells out every key with its default, for readers; this keeps the
// two from drifting apart (the example is documentation, the defaults live in src/config.ts).
describe('mockapi.config.example.ts', () => {
  it('resolves to exactly the built-in defaults', async () => {
    const example = await loadMockapiConfig({ config: join(repoRoot, 'mockapi.config.example.ts') }, repoRoot);
    const { configFile: _file, routes, ...resolved } = example;
    const { routes: none, ...defaults } = resolveConfig({}, {}, repoRoot);
    expect(resolved).toEqual(defaults);
    // Custom routes have no default (none): the example shows two (test/custom-routes.test.ts serves them).
    expect(none).toEqual({});
    expect(Object.keys(routes)).toEqual(['POST /posts/:id/like', 'GET /stats']);
  });

  it('names every key of the config schema (set, or shown in a comment), and none that does nothing yet', () => {
    const text = readFileSync(join(repoRoot, 'mockapi.config.example.ts'), 'utf8');
    const named = (path: string) => new RegExp(`\\b${path.split('.').at(-1)}:`).test(text);
    const unused = unusedLimits.map((key) => `limits.${key}`);
    expect(schemaKeys(configSchema).filter((path) => !unused.includes(path) && !named(path))).toEqual([]);
    expect(unused.filter(named)).toEqual([]);
    // Users do not have the contract: the example speaks for itself.
    expect(text).not.toMatch(/contract/i);
  });
});

/** Every key path of the schema's objects and of the values of its maps: `limits.sandboxBytes`. */
function schemaKeys(schema: Record<string, any>, prefix = ''): string[] {
  const keys: string[] = [];
  for (const [key, child] of Object.entries<Record<string, any>>(schema.properties ?? {})) {
    keys.push(`${prefix}${key}`, ...schemaKeys(child, `${prefix}${key}.`));
  }
  for (const value of Object.values<Record<string, any>>(schema.patternProperties ?? {})) keys.push(...schemaKeys(value, `${prefix}*.`));
  if (schema.items) keys.push(...schemaKeys(schema.items, `${prefix}*.`));
  return keys;
}
