import { createRequire } from 'node:module';
import { configDefaults, defineConfig } from 'vitest/config';

/** What both configs share; `vitest.slow.config.ts` runs the `*.slow.test.ts` files this one leaves out. */
export const shared = {
  // Servers run in-process (test/helpers/in-process.ts) unless a test is about the CLI; graphql
  // must then be the one copy Node loads for graphql-http (its CommonJS main, which Node picks),
  // not the index.mjs Vite prefers: two copies fail every query ("from another module or realm").
  resolve: { alias: [{ find: /^graphql$/, replacement: createRequire(import.meta.url).resolve('graphql') }] },
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // One forked worker per file (process-global state such as consola stays per file); two cores.
    pool: 'forks' as const,
    maxWorkers: 2,
  },
};

export default defineConfig({
  ...shared,
  test: {
    ...shared.test,
    include: ['test/**/*.test.ts'],
    // Fuzzing, npm pack and browsers: `npm run test:slow` (and .ci/run) runs them.
    exclude: [...configDefaults.exclude, 'test/**/*.slow.test.ts'],
  },
});
