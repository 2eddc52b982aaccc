import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { repoRoot } from './helpers/server.js';

// Contract section 19: a config's custom routes are typed through defineConfig (from the built
// package's declarations, as a user's editor sees them). Slow: the TypeScript compiler runs twice
// (custom-routes-types.test.ts checks that a malformed route is a config error).

const sample = join(repoRoot, 'test/types/custom-routes-config.ts');
const options: ts.CompilerOptions = {
  strict: true,
  noEmit: true,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  target: ts.ScriptTarget.ES2022,
  types: ['node'],
  skipLibCheck: true,
};

/** Compiles `files` (with `replaced` texts instead of what is on disk); returns `file:line: message` per error. */
function compile(files: string[], replaced: Record<string, string> = {}): string[] {
  const host = ts.createCompilerHost(options);
  const read = host.readFile.bind(host);
  host.readFile = (file) => replaced[file] ?? read(file);
  const program = ts.createProgram(files, options, host);
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const where = d.file ? `${d.file.fileName.slice(repoRoot.length + 1)}:${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1}` : '';
    return `${where}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
  });
}

describe('custom route types', () => {
  it('type the sample, the example and the template, and refuse every wrong call marked in the sample', () => {
    // An `@ts-expect-error` line that compiles is itself an error: zero errors means every marked call fails.
    expect(compile([sample, join(repoRoot, 'mockapi.config.example.ts'), join(repoRoot, 'templates/mockapi.config.ts')])).toEqual([]);

    // Without the markers, tsc fails on exactly the marked lines.
    const lines = readFileSync(sample, 'utf8').split('\n');
    const marked = lines.flatMap((line, index) => (line.trim().startsWith('// @ts-expect-error') ? [index + 2] : []));
    expect(marked.length).toBeGreaterThanOrEqual(10);
    const unmarked = lines.map((line) => (line.trim().startsWith('// @ts-expect-error') ? '//' : line)).join('\n');
    const errors = compile([sample], { [sample]: unmarked });
    const failing = [...new Set(errors.map((error) => Number(/:(\d+):/.exec(error)?.[1])))];
    expect(failing, errors.join('\n')).toEqual(marked);
  }, 60_000);
});
