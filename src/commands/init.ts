import { constants, copyFileSync, existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { commandLog } from './_log.js';

const template = resolve(dirname(fileURLToPath(import.meta.url)), '../../templates/mockapi.config.ts');
const configNames = ['mockapi.config.ts', 'mockapi.config.mts', 'mockapi.config.mjs', 'mockapi.config.js', 'mockapi.config.cjs', 'mockapi.config.json'];

/** `mockapi init`: a config and an editable copy of the baseline in the current folder; never overwrites. */
export function makeInitCommand(): Command {
  return new Command('init')
    .description('write mockapi.config.ts and fixtures/ (a copy of the baseline) into the current folder; never overwrites')
    .action(async () => {
      const { packageFixtures } = await import('../config.js');
      const cwd = process.cwd();
      const fixtures = readdirSync(packageFixtures).filter((name) => name.endsWith('.json')).sort();
      const existing = [
        ...configNames.filter((name) => existsSync(join(cwd, name))),
        ...fixtures.map((name) => `fixtures/${name}`).filter((name) => existsSync(join(cwd, name))),
      ];
      if (existing.length) throw new Error(`${existing.join(', ')} already ${existing.length === 1 ? 'exists' : 'exist'} here; nothing written`);
      if (existsSync(join(cwd, 'fixtures')) && !statSync(join(cwd, 'fixtures')).isDirectory()) throw new Error('fixtures exists here and is not a folder; nothing written');

      mkdirSync(join(cwd, 'fixtures'), { recursive: true });
      // COPYFILE_EXCL: even a file that appeared since the check above is never overwritten.
      for (const name of fixtures) copyFileSync(join(packageFixtures, name), join(cwd, 'fixtures', name), constants.COPYFILE_EXCL);
      copyFileSync(template, join(cwd, 'mockapi.config.ts'), constants.COPYFILE_EXCL);
      (await commandLog('stdout')).success(`wrote mockapi.config.ts and fixtures/ (${fixtures.join(', ')}); next: npx mockapi-sandbox serve`);
    });
}
