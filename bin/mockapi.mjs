#!/usr/bin/env node
// Tiny shim: the CLI lives in the compiled dist/ (built by `npm run build`; `npm pack` builds it
// before packing, so an installed package always has it).
const args = process.argv.slice(2);
// `mockapi --version` alone needs only the version: printed as commander would (src/cli.ts declares
// `-v, --version`), without loading the command line (commander, every command's definition).
const versionOnly = args.length === 1 && (args[0] === '--version' || args[0] === '-v');
let cli;
try {
  cli = await import(versionOnly ? '../dist/version.js' : '../dist/cli.js');
} catch (error) {
  // Only in a clone whose dist/ was never built: say the one command, not a module trace.
  if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !/dist\/(cli|version)\.js/.test(String(error.message))) throw error;
  console.error('mockapi: dist/ is not built in this clone: run `npm run build` (or `npm start`) first');
  process.exit(1);
}
if (versionOnly) process.stdout.write(`${cli.version}\n`);
else await cli.runCli(process.argv);
