import express, { Router, type RequestHandler } from 'express';
import fs from 'node:fs';
import path from 'node:path';

/** The dashboard's page paths (client-side routes); each answers with the app's index.html. */
export const DASHBOARD_PAGES = [
  '/',
  '/sign-in',
  '/meetings',
  '/meetings/:id',
  '/settings/developers',
  '/settings/integrations',
  '/settings/team',
  '/invite',
  '/ide',
];

/**
 * No script but our own files (no inline scripts, no eval), never framed. Inline styles are allowed because the
 * GraphQL IDE's editor (Monaco) writes its own style elements at run time.
 */
export const DASHBOARD_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "media-src 'self' blob:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const ONE_YEAR_S = 365 * 24 * 3600;

/** The headers of the pages that hold credentials (the dashboard, the API console): strict CSP, never framed, no sniffing, no Referer. */
export const pageSecurityHeaders: RequestHandler = function securityHeadersMiddleware(_req, res, next) {
  res.set({
    'Content-Security-Policy': DASHBOARD_CSP,
    'X-Frame-Options': 'DENY',
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
  });
  next();
};

/** Serves the built dashboard: its pages (never cached, strict CSP) and its hashed assets under /assets/dashboard (cached a year). */
export function dashboardPagesRouter(dir: string): Router {
  const router = Router();
  const indexFile = path.join(dir, 'index.html');
  router.use('/assets/dashboard', pageSecurityHeaders, (req, _res, next) => (req.path === '/index.html' ? next('router') : next()));
  router.use(
    '/assets/dashboard',
    express.static(dir, { index: false, immutable: true, maxAge: ONE_YEAR_S * 1000, fallthrough: true, redirect: false }),
  );
  router.get(DASHBOARD_PAGES, pageSecurityHeaders, (_req, res) => {
    res.set('Cache-Control', 'no-cache');
    if (!fs.existsSync(indexFile)) {
      res.status(503).type('text/plain').send('The dashboard is not built: run `npm run build -w web/dashboard` (npm install does).\n');
      return;
    }
    res.sendFile(indexFile);
  });
  return router;
}
