import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Command, Option } from 'commander';
import type { OpenApiFormat } from '../openapi/documents.js';
import { version } from '../version.js';
import { commandLog } from './_log.js';

interface OpenApiOptions {
  output?: string;
  format: OpenApiFormat;
  config?: string;
}

/**
 * `mockapi openapi`: writes the OpenAPI document the server would serve for this config, without
 * starting one (a CI step can diff it). Collection numbers do not show in it, so an in-memory
 * database stands in for the config's file.
 */
export function makeOpenApiCommand(): Command {
  return new Command('openapi')
    .description('write the OpenAPI document of the mock API (what GET /api/v1/openapi.json serves) without starting a server')
    .option('-o, --output <file>', 'write to this file (default: stdout)')
    .addOption(new Option('--format <version>', 'OpenAPI version').choices(['3.1', '3.0']).default('3.1'))
    .option('--config <file>', 'config file (default: mockapi.config.{ts,mjs,js,json} in the current folder)')
    .action(async (options: OpenApiOptions) => {
      // Loaded on use: building the command line (`mockapi --help`) needs none of them.
      const [{ baselineCollections }, { loadMockapiConfig }, { openDatabase }, { openApiTexts }] = await Promise.all([
        import('../collections/baseline.js'),
        import('../config.js'),
        import('../db/open.js'),
        import('../openapi/documents.js'),
      ]);
      const config = await loadMockapiConfig({ config: options.config });
      const db = openDatabase(':memory:');
      let text: string;
      try {
        const collections = baselineCollections(db.sqlite, config.collections);
        text = `${openApiTexts({ collections, maxPageSize: config.limits.maxPageSize, routes: config.routes }, version, 2)[options.format]}\n`;
      } finally {
        db.close();
      }
      if (options.output === undefined) {
        // A reader that stops early (`| head`) ends the output, not the command with a stack trace.
        process.stdout.once('error', (error: NodeJS.ErrnoException) => {
          if (error.code !== 'EPIPE') throw error;
        });
        process.stdout.write(text);
        return;
      }
      try {
        writeFileSync(resolve(options.output), text);
      } catch (error) {
        throw new Error(`cannot write ${options.output}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
      }
      (await commandLog('stderr')).success(`wrote the OpenAPI ${options.format} document to ${options.output}`);
    });
}
