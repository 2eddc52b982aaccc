import { readFileSync } from 'node:fs';
import type { H3 } from 'h3';
import { route } from './_resource.js';

const scriptPath = '/docs/redoc.standalone.js';

/**
 * Every load stays on the mock's origin (the page works offline): Redoc 2.5 fetches its sidebar
 * logo from its CDN with no option to stop it, and inlines its styles (styled-components) and a
 * web worker from a blob.
 */
const contentSecurityPolicy = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'self'",
].join('; ');

/**
 * Redoc's bundle (1.1 MB), read on the first request for it, not at start: `npm run build` copies
 * it into dist/redoc/ (scripts/vendor-bundles.mjs), so redoc's own dependency tree is not installed;
 * found by the package root, so the same path serves from dist/ and from src/ (the in-process tests).
 */
let script: Buffer | undefined;
const redocScript = () => (script ??= readFileSync(new URL('../../dist/redoc/redoc.standalone.js', import.meta.url)));

/**
 * `GET /docs` (outside `/api/v1`, contract section 13): the OpenAPI document rendered by Redoc,
 * served from the installed package's own copy of Redoc's bundle.
 */
export function addDocsRoutes(app: H3): void {
  route(app, '/docs', {
    GET: {
      open: true,
      handler: (event) => {
        event.res.headers.set('content-type', 'text/html; charset=utf-8');
        event.res.headers.set('content-security-policy', contentSecurityPolicy);
        return page;
      },
    },
  });
  route(app, scriptPath, {
    GET: {
      open: true,
      handler: (event) => {
        event.res.headers.set('content-type', 'text/javascript; charset=utf-8');
        event.res.headers.set('cache-control', 'public, max-age=86400');
        return redocScript();
      },
    },
  });
}

// Redoc fetches the 3.1 document from this origin and renders it (its intro is the quick start).
const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>mockapi reference</title>
<style>body { margin: 0; padding: 0; }</style>
</head>
<body>
<redoc spec-url="/api/v1/openapi.json"></redoc>
<script src="${scriptPath}"></script>
</body>
</html>
`;
