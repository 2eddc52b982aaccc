#!/usr/bin/env node
// Tiny shim: the CLI lives in the compiled dist/ (built by `npm run build`; `npm pack` builds it
// before packing, so an installed package always has it).
let cli;
try {
  cli = await import('../dist/cli.js');
} catch (error) {
  // Only in a clone whose dist/ was never built: say the one command, not a module trace.
  if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !String(error.message).includes('dist/cli.js')) throw error;
  console.error('mockapi: dist/ is not built in this clone: run `npm run build` (or `npm start`) first');
  process.exit(1);
}
await cli.runCli(process.argv);
