// The CommonJS entry of `mockapi-sandbox/playwright` (a TypeScript spec in a project without
// "type": "module" is CommonJS to Playwright): the ESM build through Node's require(esm), as
// src/index.cts does, so both module systems share one `test`.
import { createRequire } from 'node:module';

export type * from './playwright.js' with { 'resolution-mode': 'import' };
type Esm = typeof import('./playwright.js', { with: { 'resolution-mode': 'import' } });

export const { test, expect }: Esm = createRequire(__filename)('./playwright.js');
