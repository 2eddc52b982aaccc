// The package's public API (its only barrel): what config files and tests import. Its types must
// not reach better-sqlite3's (a consumer has no @types/better-sqlite3: TS7016 under
// skipLibCheck false), so the runtime and the h3 app stay internal.
export { defineConfig } from './config.js';
export type { MockapiConfig, ResolvedConfig } from './config.js';
export type {
  RouteHandler,
  RouteContext,
  RouteCollection,
  RouteProblem,
  RouteRole,
  ListQuery,
  ListPage,
  Pagination,
  RecordId,
  RecordInput,
  RecordPatch,
  StoredRecord,
  AnyRecord,
  CoreRecords,
  User,
  Post,
  Comment,
  Todo,
} from './custom-routes/types.js';
export { createMockServer, type MockServer, type MockServerOptions, type MockapiOptions, type MockSandbox, type SandboxExport, type SandboxResetAnswer } from './mock-server.js';
