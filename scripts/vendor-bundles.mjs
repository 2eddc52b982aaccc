// Part of `npm run build`: copies the prebuilt browser bundles the server serves into dist/, with
// their licences, so the installed package serves its pages from its own files:
// - dist/graphiql/: GraphiQL's UMD build with React 18's (as dependencies, graphiql, react and
//   react-dom cost every install ~20 MB of node_modules for these four files);
// - dist/redoc/: Redoc 2.5's standalone bundle for /docs (as a dependency, redoc's peers mobx,
//   styled-components and core-js cost 104 packages and ~82 MB for this one 1.1 MB file).
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
const dist = join(dirname(import.meta.dirname), 'dist');

/** Copies `files` (name in dist → source path) into dist/<folder>/ with the licences of `packages` (their folders). */
function vendor(folder, files, packages) {
  const out = join(dist, folder);
  mkdirSync(out, { recursive: true });
  for (const [name, file] of Object.entries(files)) copyFileSync(file, join(out, name));
  const licences = packages.map((dir) => {
    const { name, version } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    return `${name} ${version}\n\n${readFileSync(join(dir, 'LICENSE'), 'utf8').trim()}\n`;
  });
  writeFileSync(join(out, 'LICENSES.txt'), licences.join('\n---\n\n'));
}

const graphiqlDir = dirname(require.resolve('graphiql/package.json'));
// React as GraphiQL resolves it: the copy it was built against.
const fromGraphiql = createRequire(join(graphiqlDir, 'package.json'));
const reactDir = (name) => dirname(fromGraphiql.resolve(`${name}/package.json`));
vendor(
  'graphiql',
  {
    'graphiql.min.css': join(graphiqlDir, 'graphiql.min.css'),
    'graphiql.min.js': join(graphiqlDir, 'graphiql.min.js'),
    'react.production.min.js': join(reactDir('react'), 'umd/react.production.min.js'),
    'react-dom.production.min.js': join(reactDir('react-dom'), 'umd/react-dom.production.min.js'),
  },
  [graphiqlDir, reactDir('react'), reactDir('react-dom')],
);

const redocDir = dirname(require.resolve('redoc/package.json'));
vendor('redoc', { 'redoc.standalone.js': join(redocDir, 'bundles/redoc.standalone.js') }, [redocDir]);
