import path from 'node:path';
import express, { Router } from 'express';
import { pageSecurityHeaders } from '../dashboard/dashboard-pages.routes';
import { openApiDocument } from './openapi.document';

const DOCUMENT_TTL_MS = 3_600_000;

const consoleHtml = (base: string) => `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta name="color-scheme" content="light dark">
  <title>svc API console</title>
  <link rel="stylesheet" href="${base}/docs/assets/swagger-ui.css">
</head>
<body>
  <div id="console"></div>
  <script src="${base}/docs/assets/swagger-ui-bundle.js"></script>
  <script src="${base}/docs/console.js"></script>
</body>
</html>`;

// Swagger UI styles html.dark-mode; the console follows the system's light or dark setting, also when it changes.
const consoleJs = (base: string) => `const darkScheme = window.matchMedia('(prefers-color-scheme: dark)');
const followScheme = () => document.documentElement.classList.toggle('dark-mode', darkScheme.matches);
followScheme();
darkScheme.addEventListener('change', followScheme);
window.ui = SwaggerUIBundle({
  url: '${base}/openapi.json',
  dom_id: '#console',
  deepLinking: true,
  persistAuthorization: true,
  tryItOutEnabled: true,
  validatorUrl: null,
});`;

/**
 * Unauthenticated: the OpenAPI document and the interactive console, served from the swagger-ui-dist package. The
 * console keeps API keys in localStorage, so its page and scripts get the dashboard's strict headers (never framed).
 */
export function docsRouter(basePath = '/api/v1/public', now: () => number = Date.now): Router {
  const router = Router();
  // Rebuilt every hour, so the examples' dates (tomorrow at 09:00 UTC) stay in the future.
  let built = { atMs: now(), json: JSON.stringify(openApiDocument(basePath, now())) };
  const documentJson = () => {
    if (now() - built.atMs >= DOCUMENT_TTL_MS) built = { atMs: now(), json: JSON.stringify(openApiDocument(basePath, now())) };
    return built.json;
  };
  const html = consoleHtml(basePath);
  const js = consoleJs(basePath);
  const assets = path.dirname(require.resolve('swagger-ui-dist/package.json'));
  router.get('/openapi.json', (_req, res) => {
    res.type('application/json').send(documentJson());
  });
  router.get('/docs', pageSecurityHeaders, (_req, res) => {
    res.type('html').send(html);
  });
  router.get('/docs/console.js', pageSecurityHeaders, (_req, res) => {
    res.type('application/javascript').send(js);
  });
  router.use('/docs/assets', pageSecurityHeaders, express.static(assets, { index: false, maxAge: '1h' }));
  return router;
}
