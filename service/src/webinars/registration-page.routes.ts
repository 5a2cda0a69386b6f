import express, { Router, type Request, type Response } from 'express';
import { RateLimiter } from '../http/rate-limit';
import type { RateLimitSettings } from '../config';
import type { MeetingRow } from '../meetings/meetings.repo';
import type { Clock } from '../shared/clock';
import { isoAt } from '../shared/clock';
import { AppError } from '../shared/errors';
import { objectValidator } from '../shared/validation';
import { createRegistrationSchema, type CreateRegistrationInput } from './webinar-registrations.schemas';
import type { RegistrationsService } from './webinar-registrations.service';
import {
  REGISTRATION_PAGE_HEADERS,
  renderRegistrationPage,
  type FormField,
  type RegistrationPageView,
  type WebinarOnPage,
} from './registration-page.html';
import { pickPageLocale, type PageLocale } from './registration-page.texts';

/** Registrations one client address may send through the page: enough for an office behind one address, too few for a flood. */
export const PAGE_REGISTRATION_LIMIT: RateLimitSettings = { perSecond: 5, perMinute: 20 };

/**
 * The public registration page of a webinar, `/w/<slug>` (`?org=` picks the organization when several use the
 * slug, `?lang=` the language): GET shows it, a form POST registers through the same service call as the API,
 * `/w/<slug>/calendar.ics?invite=` is a registrant's calendar file. Views are limited per client address like the
 * room page, registrations more strictly; a filled honeypot field looks like success and registers nobody.
 */
export function registrationPageRouter(
  registrations: RegistrationsService,
  pageLimits: RateLimitSettings,
  clock: Clock,
  baseUrl: string,
  registrationLimits: RateLimitSettings = PAGE_REGISTRATION_LIMIT,
): Router {
  const router = Router();
  const views = new RateLimiter(pageLimits, clock);
  const posts = new RateLimiter(registrationLimits, clock);
  const validate = objectValidator<CreateRegistrationInput>(createRegistrationSchema);
  const form = express.urlencoded({ extended: false, limit: '8kb', parameterLimit: 10 });

  /** Answers with the page showing `view`, in the language the request asks for. */
  const send = (req: Request, res: Response, status: number, view: RegistrationPageView): void => {
    const locale = localeOf(req);
    res
      .status(status)
      .set(REGISTRATION_PAGE_HEADERS)
      .type('html')
      .send(renderRegistrationPage(locale, view, (l) => pagePath(req, { lang: l })));
  };
  /** Charges the request to its client address; over the budget, answers 429 with the page saying so. */
  const overBudget = (req: Request, res: Response, limiter: RateLimiter): boolean => {
    const decision = limiter.hit(`ip:${req.ip}`);
    if (decision.allowed) return false;
    res.set('Retry-After', String(Math.max(1, Math.ceil(decision.retryAfterMs / 1000))));
    send(req, res, 429, { kind: 'message', title: 'title.limited', text: 'limited.text' });
    return true;
  };
  /** The webinar of the page, or the friendly 404 page (then undefined). */
  const webinarOf = (req: Request, res: Response): MeetingRow | undefined => {
    try {
      return registrations.publicWebinar(String(req.params.slug), queryString(req, 'org'));
    } catch (error) {
      if (!(error instanceof AppError && error.code === 'not_found')) throw error;
      send(req, res, 404, { kind: 'message', title: 'title.notFound', text: 'notFound.text' });
      return undefined;
    }
  };

  router.get('/w/:slug', (req, res) => {
    if (overBudget(req, res, views)) return;
    const webinar = webinarOf(req, res);
    if (!webinar) return;
    const values = { name: queryString(req, 'name')?.slice(0, 200) ?? '', email: '' };
    send(req, res, 200, { kind: 'form', webinar: onPage(webinar, localeOf(req)), action: pagePath(req), values, invalid: [] });
  });

  router.post('/w/:slug', form, (req, res) => {
    if (overBudget(req, res, posts)) return;
    if (!fromThisSite(req, baseUrl)) {
      send(req, res, 403, { kind: 'message', title: 'title.refused', text: 'refused.text' });
      return;
    }
    const webinar = webinarOf(req, res);
    if (!webinar) return;
    const shown = onPage(webinar, localeOf(req));
    const body = (req.body ?? {}) as Record<string, unknown>;
    const values = { name: formValue(body.name), email: formValue(body.email) };
    // Bots fill every field; people never see this one. Answer as if registered, store and emit nothing.
    if (formValue(body.website) !== '') {
      send(req, res, 200, { kind: 'registered', webinar: shown, name: values.name.trim(), joinUrl: null, calendarUrl: null });
      return;
    }
    let input: CreateRegistrationInput;
    try {
      input = validate(values);
    } catch (error) {
      if (!(error instanceof AppError && error.code === 'validation_failed')) throw error;
      const invalid = (['name', 'email'] as FormField[]).filter((field) => error.extra.errors?.some((e) => e.param === field));
      send(req, res, 400, { kind: 'form', webinar: shown, action: pagePath(req), values, invalid });
      return;
    }
    let outcome: ReturnType<RegistrationsService['registerFor']>;
    try {
      outcome = registrations.registerFor(webinar, input);
    } catch (error) {
      // Ended or cancelled since the page was loaded: show why registration is closed.
      if (!(error instanceof AppError && error.code === 'conflict')) throw error;
      const now = registrations.publicWebinar(webinar.slug ?? '', webinar.organization_id);
      send(req, res, 409, { kind: 'form', webinar: onPage(now, localeOf(req)), action: pagePath(req), values, invalid: [] });
      return;
    }
    // A known address gets no link: whoever types someone's email must not receive that person's personal link.
    if (!outcome.created) {
      send(req, res, 200, { kind: 'already-registered', webinar: shown });
      return;
    }
    const { join_url: joinUrl, name } = outcome.registration;
    const calendarQuery = new URLSearchParams({ invite: new URL(joinUrl).searchParams.get('invite') ?? '' });
    const org = queryString(req, 'org');
    if (org) calendarQuery.set('org', org);
    const calendarUrl = `/w/${encodeURIComponent(String(req.params.slug))}/calendar.ics?${calendarQuery}`;
    send(req, res, 201, { kind: 'registered', webinar: shown, name, joinUrl, calendarUrl });
  });

  router.get('/w/:slug/calendar.ics', (req, res) => {
    if (overBudget(req, res, views)) return;
    const webinar = webinarOf(req, res);
    if (!webinar) return;
    let ics: string;
    try {
      ics = registrations.calendarFor(webinar, queryString(req, 'invite') ?? '');
    } catch (error) {
      if (!(error instanceof AppError && error.code === 'not_found')) throw error;
      send(req, res, 404, { kind: 'message', title: 'title.notFound', text: 'notFound.text' });
      return;
    }
    res
      .status(200)
      .set({
        'Cache-Control': 'no-store',
        'X-Content-Type-Options': 'nosniff',
        'Content-Disposition': `attachment; filename="${webinar.slug}.ics"`,
      })
      .type('text/calendar; charset=utf-8')
      .send(ics);
  });
  return router;
}

/** What the page shows of a webinar in `locale`: the start in the webinar's own zone (its IANA zone, else the offset it was planned with). */
export function onPage(webinar: MeetingRow, locale: PageLocale): WebinarOnPage {
  const options: Intl.DateTimeFormatOptions = {
    weekday: 'long',
    day: 'numeric',
    month: 'long',
    year: 'numeric',
    hour: 'numeric',
    minute: '2-digit',
  };
  const zoneName = webinar.time_zone;
  let zonedStart: string | undefined;
  let zone: string | undefined;
  if (zoneName) {
    try {
      zonedStart = new Intl.DateTimeFormat(locale, { ...options, timeZone: zoneName }).format(webinar.scheduled_at_ms);
      zone = zoneName;
    } catch {
      // A zone this Node's ICU does not know: fall back to the offset below.
    }
  }
  if (zonedStart === undefined || zone === undefined) {
    const offsetMinutes = offsetOf(webinar.scheduled_at);
    zonedStart = new Intl.DateTimeFormat(locale, { ...options, timeZone: 'UTC' }).format(webinar.scheduled_at_ms + offsetMinutes * 60_000);
    zone =
      offsetMinutes === 0
        ? 'UTC'
        : `UTC${offsetMinutes < 0 ? '−' : '+'}${pad(Math.abs(offsetMinutes) / 60)}:${pad(Math.abs(offsetMinutes) % 60)}`;
  }
  return {
    title: webinar.title,
    status: webinar.status,
    startsAt: isoAt(webinar.scheduled_at_ms),
    durationMinutes: webinar.duration_minutes,
    zonedStart,
    zone,
  };
}

const pad = (n: number) => String(Math.floor(n)).padStart(2, '0');

/** Minutes east of UTC of an ISO 8601 date-time's offset (`Z` is 0). */
function offsetOf(dateTime: string): number {
  const match = /([+-])(\d{2}):?(\d{2})$/.exec(dateTime);
  if (!match) return 0;
  return (match[1] === '-' ? -1 : 1) * (Number(match[2]) * 60 + Number(match[3]));
}

function localeOf(req: Request): PageLocale {
  return pickPageLocale(queryString(req, 'lang'), req.get('accept-language'));
}

/** The page's own path keeping its `org` and `lang` choices, with `changes` applied. */
function pagePath(req: Request, changes: { lang?: string } = {}): string {
  const query = new URLSearchParams();
  const org = queryString(req, 'org');
  if (org) query.set('org', org);
  const lang = changes.lang ?? queryString(req, 'lang');
  if (lang) query.set('lang', lang);
  const search = query.toString();
  return `/w/${encodeURIComponent(String(req.params.slug))}${search ? `?${search}` : ''}`;
}

function queryString(req: Request, name: string): string | undefined {
  const value = (req.query as Record<string, unknown>)[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function formValue(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/**
 * Whether a form POST comes from this site's own page (CSRF): browsers name the sending site in `Sec-Fetch-Site`
 * and `Origin`; either pointing elsewhere refuses it. A client sending neither (curl) is no browser carrying a
 * victim's session, and registering needs no session anyway.
 */
function fromThisSite(req: Request, baseUrl: string): boolean {
  const site = req.get('sec-fetch-site');
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return false;
  const origin = req.get('origin');
  if (origin === undefined) return true;
  return origin === new URL(baseUrl).origin || origin === `${req.protocol}://${req.get('host') ?? ''}`;
}
