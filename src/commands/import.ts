import { readFileSync, rmSync } from 'node:fs';
import { Command } from 'commander';
import type { FieldProblem } from '../errors.js';
import { createProgress, openCommandDatabase, sandboxCount, withDatabaseOptions, type DatabaseOptions } from './_database.js';
import { commandLog } from './_log.js';

interface ImportOptions extends DatabaseOptions {
  dryRun?: boolean;
}

/** `mockapi import <file>`: replaces each sandbox of an export document, all or nothing. */
export function makeImportCommand(): Command {
  const command = new Command('import')
    .description('replace the sandboxes of an export document by their exported state (others are untouched), all in one transaction')
    .argument('<file>', 'an export document (from "mockapi export")')
    .option('--dry-run', 'check the document against the database, write nothing');
  withDatabaseOptions(command);
  return command.action(async (file: string, options: ImportOptions) => {
    const document = readDocument(file);
    const [{ importDocument }, { maxProblems }] = await Promise.all([import('../engine/import-document.js'), import('../engine/check-export-document.js')]);
    const log = await commandLog('stderr');
    const { db, engine, config, close, created } = await openCommandDatabase(options, { memoryIfMissing: options.dryRun });
    let imported = false;
    try {
      const progress = createProgress('importing');
      const result = importDocument({ db, engine, limits: config.limits }, document, { dryRun: options.dryRun, onProgress: progress.update });
      progress.end();
      if (!result.ok) throw new Error(`${file} is not a valid export document: ${describeProblems(result.problems, maxProblems)}`);
      const count = sandboxCount(result.sandboxes.length);
      if (options.dryRun) log.success(`${file} is valid: importing it would replace ${count} (dry run, nothing written)`);
      else log.success(`imported ${count}`);
      imported = true;
    } finally {
      close();
      // Nothing was imported: a file this command made (the baseline alone, ~0.5 MB) goes too.
      if (created && !imported) for (const suffix of ['', '-wal', '-shm']) rmSync(`${config.db}${suffix}`, { force: true });
    }
  });
}

function readDocument(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new Error(code === 'ENOENT' ? `cannot read ${file}: no such file` : `cannot read ${file}: ${code ?? (error as Error).message}`);
  }
  if (text.trim() === '') throw new Error(`${file} is empty, not an export document`);
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Error(`${file} is not valid JSON (truncated?): ${(error as Error).message}`);
  }
}

/** The first problems in one line: "/a/b must be ...; /c is required (and more)". */
function describeProblems(problems: FieldProblem[], maxProblems: number): string {
  const shown = problems.slice(0, 5).map((p) => `${p.path} ${p.message}`);
  const more = problems.length > shown.length || problems.length >= maxProblems ? ' (and more)' : '';
  return `${shown.join('; ')}${more}`;
}
