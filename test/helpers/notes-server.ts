import { afterAll, beforeAll } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type CliServer } from './server.js';

/**
 * A server with a config-declared `notes` collection whose `meta` field is free JSON (GraphQL's
 * `JSON` scalar, so `CreateNoteInput.meta` takes any value), for tests of hostile input. One per
 * test file, like `useServer`. Spawned: the tests of hostile input read the server process's own memory.
 */
export function useNotesServer(): CliServer {
  let dir = '';
  let current: CliServer | undefined;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mockapi-notes-'));
    writeFileSync(join(dir, 'notes.json'), JSON.stringify([{ id: 1, title: 'first', meta: { tags: ['a'] } }]));
    const schema = { type: 'object', properties: { title: { type: 'string' }, meta: {} }, required: ['title'] };
    writeFileSync(join(dir, 'mockapi.config.json'), JSON.stringify({ collections: { notes: { fixture: './notes.json', schema } } }));
    current = await startServer({ args: ['--config', join(dir, 'mockapi.config.json')], cwd: dir, cli: true });
  });
  afterAll(async () => {
    await current?.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });
  return new Proxy({} as CliServer, {
    get: (_target, key) => {
      if (!current) throw new Error('the test server has not started');
      return current[key as keyof CliServer];
    },
  });
}
