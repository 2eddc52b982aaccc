// Part of `npm run build`: copies GraphiQL's prebuilt browser bundle (its UMD build with React 18's)
// and their licences into dist/graphiql/, so the installed package serves the page from its own
// files. graphiql, react and react-dom are then dev dependencies: at runtime they were only these
// four files, and as dependencies they cost every install ~20 MB of node_modules (graphiql's whole
// React component tree, CodeMirror, framer-motion...).
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
const graphiqlDir = dirname(require.resolve('graphiql/package.json'));
// React as GraphiQL resolves it: the copy it was built against.
const fromGraphiql = createRequire(join(graphiqlDir, 'package.json'));
const packageDir = (name) => dirname(fromGraphiql.resolve(`${name}/package.json`));
const out = join(dirname(import.meta.dirname), 'dist/graphiql');

const files = {
  'graphiql.min.css': join(graphiqlDir, 'graphiql.min.css'),
  'graphiql.min.js': join(graphiqlDir, 'graphiql.min.js'),
  'react.production.min.js': join(packageDir('react'), 'umd/react.production.min.js'),
  'react-dom.production.min.js': join(packageDir('react-dom'), 'umd/react-dom.production.min.js'),
};
mkdirSync(out, { recursive: true });
for (const [name, file] of Object.entries(files)) copyFileSync(file, join(out, name));

const licences = [graphiqlDir, packageDir('react'), packageDir('react-dom')].map((dir) => {
  const { name, version } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  return `${name} ${version}\n\n${readFileSync(join(dir, 'LICENSE'), 'utf8').trim()}\n`;
});
writeFileSync(join(out, 'LICENSES.txt'), licences.join('\n---\n\n'));
