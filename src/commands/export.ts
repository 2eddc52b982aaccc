import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Command } from 'commander';
import {
  createProgress,
  openCommandDatabase,
  requireOneSelection,
  sandboxCount,
  withDatabaseOptions,
  withSandboxSelection,
  type DatabaseOptions,
} from './_database.js';
import { commandLog } from './_log.js';
import { writeStdout } from './_stdout.js';

interface ExportOptions extends DatabaseOptions {
  sandbox?: string;
  all?: boolean;
  output?: string;
}

/** `mockapi export`: writes sandboxes as one export document (schemas/mockapi-export.schema.json). */
export function makeExportCommand(): Command {
  const command = new Command('export').description('write sandboxes as one JSON export document (see schemas/mockapi-export.schema.json)');
  withSandboxSelection(command, 'export');
  command.option('-o, --output <file>', 'write to this file (default: stdout)');
  withDatabaseOptions(command);
  return command.action(async (options: ExportOptions) => {
    requireOneSelection(command, options);
    const { buildExportDocument, sandboxesHoldingData } = await import('../engine/export-document.js');
    const { db, engine, close } = await openCommandDatabase(options, { mustExist: true });
    let json: string;
    let count: number;
    try {
      const keys = options.all ? sandboxesHoldingData(db) : [options.sandbox!];
      const progress = createProgress('exporting');
      const document = buildExportDocument(db, engine.collections, keys, progress.update);
      progress.end();
      json = `${JSON.stringify(document, null, 2)}\n`;
      count = keys.length;
    } finally {
      close();
    }
    if (options.output === undefined) return writeStdout(json);
    try {
      writeFileSync(resolve(options.output), json);
    } catch (error) {
      throw new Error(`cannot write ${options.output}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
    (await commandLog('stderr')).success(`exported ${sandboxCount(count)} to ${options.output}`);
  });
}
