import { defineConfig } from 'vitest/config';
import { shared } from './vitest.config.js';

/** The slow suites (fuzzing, npm pack, browsers): `npm run test:slow`. */
export default defineConfig({
  ...shared,
  test: { ...shared.test, include: ['test/**/*.slow.test.ts'] },
});
