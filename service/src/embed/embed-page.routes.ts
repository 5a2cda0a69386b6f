import fs from 'node:fs';
import path from 'node:path';
import { Router, type Request, type Response } from 'express';
import type { RateLimitSettings } from '../config';
import { RateLimiter, rateLimit } from '../http/rate-limit';
import { ROOM_PAGE_DIR, roomPageHeaders } from '../rooms/room-page.routes';
import type { Clock } from '../shared/clock';
import { AppError } from '../shared/errors';
import type { EmbedPage, EmbedPageRequest, EmbedService } from './embed.service';
import { EMBED_FEATURES, EMBED_LOCALE_PATTERN, EMBED_TOKEN_LIMITS, type EmbedFeatureSet } from '../rooms/embed-tokens';

/** Where the script-tag build of the SDK is (embed/sdk/dist, built by `npm run build`). */
export const EMBED_SCRIPT_FILE = path.resolve(__dirname, '../../../embed/sdk/dist/svc-embed.js');

const LOCALE = new RegExp(EMBED_LOCALE_PATTERN);

/**
 * The embedded room: `/<locale>/embed/<token>` and `/<locale>/embed/m/<code>` serve the room page (the same
 * app as /m/<code>) framable only by the meeting's allowed origins, with its embed config in a meta tag;
 * `/embed/svc-embed.js` is the SDK's script-tag build; `/embed/frame-check` tells the SDK whether its page may frame
 * the room (limited per client address like the room page's API).
 */
export function embedPageRouter(
  embed: EmbedService,
  limits: RateLimitSettings,
  clock: Clock,
  pageDir: string = ROOM_PAGE_DIR,
  scriptFile: string = EMBED_SCRIPT_FILE,
): Router {
  const router = Router();
  let template: string | undefined;

  router.get('/embed/svc-embed.js', (_req, res) => {
    res.set({ 'Cache-Control': 'public, max-age=300', 'Access-Control-Allow-Origin': '*', 'Cross-Origin-Resource-Policy': 'cross-origin' });
    res.sendFile(scriptFile, (error) => {
      if (error && !res.headersSent) res.status(404).type('text/plain').send('The embed SDK is not built; run `npm run build`');
    });
  });

  // Any page may ask (CORS *), about its own origin only: a browser's fetch names it in `Origin`, which a page cannot forge.
  // `?origin=` is used when a same-origin request carries no Origin header.
  router.get('/embed/frame-check', rateLimit(new RateLimiter(limits, clock), clock), (req, res) => {
    const query = req.query as Record<string, unknown>;
    const code = typeof query.code === 'string' && query.code !== '' ? query.code : undefined;
    const token = typeof query.token === 'string' && query.token !== '' ? query.token : undefined;
    if ((code === undefined) === (token === undefined)) {
      throw AppError.invalid([{ param: code === undefined ? 'code' : 'token', message: 'give either code or token' }]);
    }
    const origin = req.get('origin') ?? (typeof query.origin === 'string' ? query.origin : null);
    res
      .set({ 'Access-Control-Allow-Origin': '*', 'Cache-Control': 'no-store', Vary: 'Origin' })
      .json(embed.frameCheck(token !== undefined ? { token } : { code: code! }, origin));
  });

  // Another first segment is not an embed URL: 404 before any page is worked out.
  router.param('locale', (req, _res, next, locale) => {
    if (!LOCALE.test(String(locale))) throw AppError.notFound(`Page ${req.path}`);
    next();
  });

  const send = (res: Response, page: EmbedPage): void => {
    try {
      template ??= fs.readFileSync(path.join(pageDir, 'index.html'), 'utf8');
    } catch {
      throw new AppError('internal_error', 'The room page is not built; run `npm run build`');
    }
    const meta = `<meta name="svc-embed" content="${escapeAttribute(JSON.stringify(page.config))}" />`;
    res
      .status(page.status)
      .set(roomPageHeaders(page.frameAncestors))
      .set('Cache-Control', 'no-store')
      .type('html')
      .send(template.replace('</head>', `  ${meta}\n  </head>`));
  };

  router.get('/:locale/embed/m/:code', (req, res) => {
    send(res, embed.pageForCode(String(req.params.code), pageRequest(req, true)));
  });
  router.get('/:locale/embed/:token', (req, res) => {
    send(res, embed.pageForToken(String(req.params.token), pageRequest(req, false)));
  });
  return router;
}

/** The declared parent origin (the SDK's `?origin=`, else the Referer's origin), and for bare codes the name and switched-off features. */
function pageRequest(req: Request, withOptions: boolean): EmbedPageRequest {
  const query = req.query as Record<string, string | undefined>;
  let parentOrigin = query.origin ?? null;
  if (!parentOrigin && req.get('referer')) {
    try {
      parentOrigin = new URL(req.get('referer')!).origin;
    } catch {
      parentOrigin = null;
    }
  }
  if (!withOptions) return { parentOrigin };
  const features: Partial<EmbedFeatureSet> = {};
  for (const feature of EMBED_FEATURES) if (query[feature] === '0' || query[feature] === 'false') features[feature] = false;
  const name = query.name?.trim().slice(0, EMBED_TOKEN_LIMITS.maxNameLength);
  return { parentOrigin, features, name: name || undefined };
}

function escapeAttribute(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
