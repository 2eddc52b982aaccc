// mockapi's config, written by `mockapi init`. Every key is optional, and the flags of
// `mockapi serve` win over this file. The package's mockapi.config.example.ts shows every key.
import { defineConfig } from 'mockapi-sandbox';

export default defineConfig({
  // The baseline every sandbox starts from: one `<collection>.json` array per collection, with
  // integer ids. Edit them freely; the server reloads them when it starts after a change.
  fixtures: './fixtures',

  // The SQLite file holding every sandbox, relative to this file (':memory:' keeps nothing).
  db: '.mockapi/mockapi.db',

  // Where to listen (flags --port and --host); port 0 takes any free port.
  // port: 4010,
  // host: '127.0.0.1',

  // limits: {
  //   createdPerCollection: 30, // live records a sandbox may create per collection
  //   maxPageSize: 200,         // highest `limit` of a list page
  //   bodyBytes: 1024 * 1024,   // largest request body
  //   sandboxTtl: '7d',         // an idle sandbox is purged after this; 0 never
  //   sandboxBytes: 8388608,    // bytes of records a sandbox may store; 0 no bound
  // },
});
