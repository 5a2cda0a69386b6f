import fs from 'node:fs';
import path from 'node:path';
import express, { Router, type Request } from 'express';
import { jsonBody } from '../http/body';
import { RateLimiter, rateLimit } from '../http/rate-limit';
import type { RateLimitSettings } from '../config';
import type { Clock } from '../shared/clock';
import { AppError } from '../shared/errors';
import type { RoomAccess } from './room-access';

/** Where the built room page is (web/room/dist, built by `npm run build`). */
export const ROOM_PAGE_DIR = path.resolve(__dirname, '../../../web/room/dist');

/**
 * The room page's policy: only its own scripts, styles and socket; camera, microphone and screen capture
 * for this origin only; framed by `frameAncestors` only (`'none'` for /m/<code>; the embed page passes the
 * meeting's allowed origins).
 */
export function roomPageHeaders(frameAncestors: string): Record<string, string> {
  return {
    'Content-Security-Policy': [
      "default-src 'self'",
      "script-src 'self'",
      "style-src 'self'",
      "img-src 'self' data: blob:",
      "media-src 'self' blob: mediastream:",
      "connect-src 'self'",
      `frame-ancestors ${frameAncestors}`,
      "base-uri 'none'",
      "form-action 'none'",
    ].join('; '),
    'Permissions-Policy': 'camera=(self), microphone=(self), display-capture=(self)',
    'Referrer-Policy': 'no-referrer',
    'X-Content-Type-Options': 'nosniff',
    'Cache-Control': 'no-cache',
  };
}

const ROOM_PAGE_HEADERS = roomPageHeaders("'none'");

/**
 * The room outside the API: the page at `/m/<code>`, its hashed assets at `/assets/room/`, and the
 * page's own API at `/rooms/v1/` (room info and socket credentials; no API key, limited per client).
 */
export function roomPageRouter(access: RoomAccess, limits: RateLimitSettings, clock: Clock, pageDir: string = ROOM_PAGE_DIR): Router {
  const router = Router();
  let page: string | undefined;
  const pageHtml = (): string => {
    page ??= fs.readFileSync(path.join(pageDir, 'index.html'), 'utf8');
    return page;
  };

  router.use('/assets/room', express.static(pageDir, { index: false, immutable: true, maxAge: '365d' }));

  router.get('/m/:code', (req, res) => {
    let html: string;
    try {
      html = pageHtml();
    } catch {
      throw new AppError('internal_error', 'The room page is not built; run `npm run build`');
    }
    let known = true;
    try {
      access.info(String(req.params.code));
    } catch (error) {
      if (!(error instanceof AppError && error.code === 'not_found')) throw error;
      known = false;
    }
    // An unknown code still gets the page (it says so), with the status a crawler or a link checker expects.
    res
      .status(known ? 200 : 404)
      .set(ROOM_PAGE_HEADERS)
      .type('html')
      .send(html);
  });

  const api = Router();
  api.use(rateLimit(new RateLimiter(limits, clock), clock));
  api.use(jsonBody);
  api.get('/:code', (req, res) => {
    res.set('Cache-Control', 'no-store').json(access.info(String(req.params.code)));
  });
  api.post('/:code/credentials', (req, res) => {
    res
      .status(201)
      .set('Cache-Control', 'no-store')
      .json(access.issueCredential(String(req.params.code), req.body, socketBase(req)));
  });
  router.use('/rooms/v1', api);
  return router;
}

/** ws:// or wss:// on the host the page was loaded from, so the socket is same-origin for the page's CSP. */
function socketBase(req: Request): string {
  return `${req.protocol === 'https' ? 'wss' : 'ws'}://${req.get('host') ?? 'localhost'}`;
}
