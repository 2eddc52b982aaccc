import { readFileSync } from 'node:fs';

/**
 * GraphiQL's prebuilt browser bundle (its UMD build with React 18's), copied into dist/graphiql/
 * by `npm run build` (scripts/vendor-graphiql.mjs), never a CDN: the page works offline and pins
 * the versions the package was tested with, and an install carries these 4 MB of files instead of
 * graphiql's and React's packages.
 */
// By the package root, so the same path serves from dist/ and from src/ (the in-process tests).
const assetDir = new URL('../../dist/graphiql/', import.meta.url);
const javascript = 'text/javascript; charset=utf-8';

export const graphiqlAssets: Record<string, { file: URL; type: string }> = {
  'graphiql.min.css': { file: new URL('graphiql.min.css', assetDir), type: 'text/css; charset=utf-8' },
  'graphiql.min.js': { file: new URL('graphiql.min.js', assetDir), type: javascript },
  'react.production.min.js': { file: new URL('react.production.min.js', assetDir), type: javascript },
  'react-dom.production.min.js': { file: new URL('react-dom.production.min.js', assetDir), type: javascript },
};

const loaded = new Map<string, Buffer>();
/** An asset's bytes, read once (GraphiQL's bundle is 3.5 MB: not read per request). */
export function graphiqlAsset(name: string): { body: Buffer; type: string } | undefined {
  const asset = Object.hasOwn(graphiqlAssets, name) ? graphiqlAssets[name] : undefined;
  if (!asset) return undefined;
  let body = loaded.get(name);
  if (!body) loaded.set(name, (body = readFileSync(asset.file)));
  return { body, type: asset.type };
}

const defaultQuery = `# The same sandbox as the REST API (your svc_identity cookie).
{
  posts(limit: 3, sort: "-id") {
    data { id title user { name } comments { email } }
    pagination { total nextCursor }
  }
}
`;

/** The page: asset URLs relative to `base` (the endpoint's path), queries sent to `endpoint`. */
export function graphiqlPage(endpoint: string, base: string): string {
  const asset = (name: string) => `${base}/${name}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>mockapi GraphiQL</title>
<link rel="stylesheet" href="${asset('graphiql.min.css')}">
<style>html, body, #graphiql { height: 100%; margin: 0; }</style>
</head>
<body>
<div id="graphiql">Loading GraphiQL…</div>
<script src="${asset('react.production.min.js')}"></script>
<script src="${asset('react-dom.production.min.js')}"></script>
<script src="${asset('graphiql.min.js')}"></script>
<script>
  const fetcher = GraphiQL.createFetcher({ url: ${JSON.stringify(endpoint)} });
  ReactDOM.createRoot(document.getElementById('graphiql')).render(
    React.createElement(GraphiQL, { fetcher, defaultQuery: ${JSON.stringify(defaultQuery)} }),
  );
</script>
</body>
</html>
`;
}
