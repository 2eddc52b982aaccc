// The package's public API (its only barrel): what config files, tests and embedders import.
export { defineConfig } from './config.js';
export type { MockapiConfig, ResolvedConfig } from './config.js';
export { createApp } from './app.js';
export { createRuntime } from './runtime.js';
export type { Runtime } from './runtime.js';
export { createMockServer, type MockServer, type MockServerOptions, type MockSandbox, type SandboxExport, type SandboxResetAnswer } from './mock-server.js';
