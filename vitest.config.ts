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
    // Forked workers, each running file after file with one module cache: most files start an
    // in-process server over the whole of src/, and importing it again for every file cost more
    // CPU than their tests (18 HTTP test files: 31 CPU-s isolated, 10 not). Each file still gets
    // its own server and database; module state in src/ is caches keyed by object or path, and
    // test/helpers/in-process.ts sets its consola reporter once per worker. Three on two cores:
    // a file waiting on a spawned CLI, a watcher's debounce or a grace period leaves its core to
    // the others (a 16-file mix: 53-71 s with 3, 70-72 s with 2).
    pool: 'forks' as const,
    maxWorkers: 3,
    isolate: false,
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
