// The CommonJS entry (`require('mockapi-sandbox')`). Node 20.19+ loads the ESM build with its own
// require(esm) (nothing in the graph awaits at top level), so CommonJS and ESM users share one
// module. Jest is the exception: its `require` (and the `createRequire` it hands out) cannot load
// ES modules before Node 24.9, nor can its `import()` without --experimental-vm-modules. There
// createMockServer imports the ESM build through Node's own loader, outside Jest's module
// registry (vm's USE_MAIN_CONTEXT_DEFAULT_LOADER), which is why it is the one async export.
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import vm from 'node:vm';

export type * from './index.js' with { 'resolution-mode': 'import' };
type Esm = typeof import('./index.js', { with: { 'resolution-mode': 'import' } });

const esmPath = require.resolve('./index.js');

function requireEsm(): Esm | undefined {
  try {
    return createRequire(__filename)(esmPath) as Esm;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ERR_REQUIRE_ESM') throw error;
    return undefined;
  }
}

function importOutsideJest(): Promise<Esm> {
  const source = `import(${JSON.stringify(pathToFileURL(esmPath).href)})`;
  return vm.runInThisContext(source, { importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER }) as Promise<Esm>;
}

const esm = requireEsm();

export const createMockServer: Esm['createMockServer'] =
  esm?.createMockServer ?? (async (options) => (await importOutsideJest()).createMockServer(options));

/** Types the config (`module.exports = defineConfig({...})`); it returns it unchanged. */
export const defineConfig: Esm['defineConfig'] = esm?.defineConfig ?? ((config) => config);
