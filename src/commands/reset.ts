import { Command } from 'commander';
import { openCommandDatabase, requireOneSelection, sandboxCount, withDatabaseOptions, withSandboxSelection, type DatabaseOptions } from './_database.js';
import { commandLog } from './_log.js';

interface ResetOptions extends DatabaseOptions {
  sandbox?: string;
  all?: boolean;
}

/** `mockapi reset`: purges overlays in the database file, also while a server runs on it. */
export function makeResetCommand(): Command {
  const command = new Command('reset').description("purge sandboxes' changes (snapshots are kept), also while a server runs on the file");
  withSandboxSelection(command, 'reset');
  withDatabaseOptions(command);
  return command.action(async (options: ResetOptions) => {
    requireOneSelection(command, options);
    const { sandboxesHoldingData } = await import('../engine/export-document.js');
    const log = await commandLog('stderr');
    const { db, engine, close } = await openCommandDatabase(options, { mustExist: true });
    try {
      const keys = options.all ? sandboxesHoldingData(db) : [options.sandbox!];
      let rows = 0;
      let changed = 0;
      // One transaction for all of them: a server sees every sandbox reset, or none yet.
      engine.sandboxes.write(() => {
        for (const key of keys) {
          const purged = Object.values(engine.reset(key)).reduce((sum, n) => sum + n, 0);
          rows += purged;
          if (purged) changed++;
        }
      });
      // --all counts the sandboxes that had changes (some may hold only snapshots, which reset keeps).
      const count = options.all ? changed : keys.length;
      log.success(`reset ${sandboxCount(count)} (${rows} overlay ${rows === 1 ? 'row' : 'rows'} purged)`);
    } finally {
      close();
    }
  });
}
