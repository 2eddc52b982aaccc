import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { loadMockapiConfig, resolveConfig } from '../../src/config.js';
import { repoRoot } from '../helpers/server.js';

// mockapi.config.example.ts spells out every key with its default, for readers; this keeps the
// two from drifting apart (the example is documentation, the defaults live in src/config.ts).
describe('mockapi.config.example.ts', () => {
  it('resolves to exactly the built-in defaults', async () => {
    const example = await loadMockapiConfig({ config: join(repoRoot, 'mockapi.config.example.ts') }, repoRoot);
    const { configFile: _file, ...resolved } = example;
    expect(resolved).toEqual(resolveConfig({}, {}, repoRoot));
  });
});
