#!/usr/bin/env node
// Tiny shim: the CLI lives in the compiled dist/ (built by `npm run build`, run on install).
import { runCli } from '../dist/cli.js';

await runCli(process.argv);
