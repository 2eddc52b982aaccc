import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, extname } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ConfigError, loadMockapiConfig, resolveConfig, type ConfigFlags, type MockapiConfig, type ResolvedConfig } from '../config.js';

const require = createRequire(import.meta.url);
let generation = 0;

/**
 * `loadMockapiConfig` again, past the module caches: c12's jiti loads `.json` and CommonJS
 * through `require` (cached by path even with `moduleCache: false`) and `.mjs`, `.cjs` and `.js`
 * through native `import()`, which caches by URL for the life of the process. So a second load
 * of those would silently return the first file's content.
 */
export async function reloadMockapiConfig(flags: ConfigFlags, cwd: string, file: string | undefined): Promise<ResolvedConfig> {
  if (!file || !existsSync(file)) return loadMockapiConfig(flags, cwd);
  delete require.cache[file];
  if (!isNativeModule(file)) return loadMockapiConfig(flags, cwd);

  let fileConfig: unknown;
  try {
    // A new URL is a new module; the old ones stay in memory, a few KiB per reload.
    const module = (await import(`${pathToFileURL(file).href}?reload=${++generation}`)) as { default?: unknown };
    fileConfig = module.default ?? {};
    if (typeof fileConfig === 'function') fileConfig = await (fileConfig as () => unknown)();
  } catch (error) {
    // A config importing `mockapi` from a folder without the package fails natively; jiti (through
    // c12) then transpiles it with the alias, and a transpiled module is not cached.
    if ((error as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND' && /'mockapi'/.test((error as Error).message)) {
      return loadMockapiConfig(flags, cwd);
    }
    throw new ConfigError(`cannot load config: ${(error as Error).message.split('\n')[0]}`);
  }
  const resolved = resolveConfig(fileConfig as MockapiConfig, flags, dirname(file));
  resolved.configFile = file;
  return resolved;
}

/** What jiti hands to native `import()` when loading asynchronously: every JavaScript file it need not transpile. */
function isNativeModule(file: string): boolean {
  return ['.mjs', '.cjs', '.js'].includes(extname(file));
}
