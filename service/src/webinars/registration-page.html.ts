import { createHash } from 'node:crypto';
import { PAGE_LOCALES, pageText, type PageLocale, type PageMessageKey } from './registration-page.texts';

/** What the page says about the webinar. */
export interface WebinarOnPage {
  title: string;
  status: 'scheduled' | 'live' | 'ended' | 'cancelled';
  /** The start in UTC (ISO 8601); the page's script shows it in the viewer's zone. */
  startsAt: string;
  durationMinutes: number;
  /** The start written in the webinar's own zone, and that zone's name (an IANA name or `UTC+09:00`). */
  zonedStart: string;
  zone: string;
}

/** A registration form field. */
export type FormField = 'name' | 'email';

/** One screen of the registration page. */
export type RegistrationPageView =
  | { kind: 'form'; webinar: WebinarOnPage; action: string; values: Record<FormField, string>; invalid: FormField[] }
  | { kind: 'registered'; webinar: WebinarOnPage; name: string; joinUrl: string | null; calendarUrl: string | null }
  | { kind: 'already-registered'; webinar: WebinarOnPage }
  | { kind: 'message'; title: PageMessageKey; text: PageMessageKey };

const STYLE = `
:root{color-scheme:light dark;--bg:light-dark(#f3f4f7,#0e1014);--surface:light-dark(#fff,#191c22);--surface-2:light-dark(#eef0f4,#22262e);
--border:light-dark(#d9dce3,#30353f);--text:light-dark(#16181d,#e9ebef);--muted:light-dark(#5b6270,#a2a8b3);
--primary:light-dark(#2563eb,#4f86ff);--primary-text:light-dark(#fff,#0b0c0f);--primary-hover:light-dark(#1d4fd8,#6b98ff);
--danger-text:light-dark(#b4232c,#ff8a8f);--ok:light-dark(#15803d,#4ade80);--focus:#f59e0b;
font-family:system-ui,-apple-system,'Segoe UI',Roboto,'Helvetica Neue',Arial,sans-serif;font-size:16px;line-height:1.5}
*{box-sizing:border-box}
body{margin:0;min-height:100vh;background:var(--bg);color:var(--text);display:flex;flex-direction:column;align-items:center;padding:32px 16px}
main{width:100%;max-width:560px;background:var(--surface);border:1px solid var(--border);border-radius:14px;padding:28px;
box-shadow:0 10px 30px light-dark(rgb(15 20 30/.12),rgb(0 0 0/.45))}
.eyebrow{margin:0 0 4px;font-size:.8rem;font-weight:600;letter-spacing:.06em;text-transform:uppercase;color:var(--muted)}
h1{margin:0 0 16px;font-size:1.6rem;line-height:1.25;overflow-wrap:anywhere}
h2{margin:24px 0 8px;font-size:1.2rem}
.when{margin:0 0 20px;padding:14px 16px;border-radius:10px;background:var(--surface-2)}
.when p{margin:0}.when .label{font-size:.85rem;color:var(--muted)}.when .local{font-weight:600;font-size:1.05rem}
.when .zone,.when .duration{color:var(--muted);font-size:.92rem}
.notice{margin:0 0 16px;padding:12px 14px;border-radius:10px;border:1px solid var(--border)}
.notice.live{border-color:var(--ok);color:var(--ok)}
form{display:grid;gap:16px}
label{display:block;font-weight:600;margin-bottom:6px}
input[type=text],input[type=email],input[type=url]{width:100%;font:inherit;padding:10px 12px;border-radius:8px;border:1px solid var(--border);
background:var(--surface);color:var(--text)}
input:focus-visible,button:focus-visible,a:focus-visible{outline:3px solid var(--focus);outline-offset:2px}
input[aria-invalid=true]{border-color:var(--danger-text)}
.field-error{margin:6px 0 0;color:var(--danger-text);font-size:.92rem}
.summary{margin:0;color:var(--danger-text);font-weight:600}
.hint{margin:0;color:var(--muted);font-size:.92rem}
.hp{position:absolute;left:-10000px;top:auto;width:1px;height:1px;overflow:hidden}
button,.button{display:inline-flex;align-items:center;justify-content:center;min-height:44px;padding:10px 18px;border-radius:8px;border:0;
font:inherit;font-weight:600;cursor:pointer;text-decoration:none;background:var(--primary);color:var(--primary-text)}
button:hover,.button:hover{background:var(--primary-hover)}
.secondary{background:var(--surface-2);color:var(--text);border:1px solid var(--border)}
.secondary:hover{background:var(--border)}
.link-row{display:flex;gap:8px;margin:8px 0 12px}
.link-row input{flex:1;min-width:0;font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.85rem}
.actions{display:flex;flex-wrap:wrap;gap:10px;margin-top:12px}
a{color:var(--primary)}
nav{margin-top:16px;font-size:.9rem;color:var(--muted)}
nav a{color:var(--muted)}nav [aria-current]{color:var(--text);font-weight:600;text-decoration:none}
[hidden]{display:none!important}
@media (max-width:480px){body{padding:16px 10px}main{padding:20px 16px}h1{font-size:1.35rem}.link-row{flex-direction:column}}
`;

const SCRIPT = `
(() => {
  const lang = document.documentElement.lang;
  const locales = (navigator.language || '').toLowerCase().split('-')[0] === lang ? navigator.languages : [lang];
  const format = new Intl.DateTimeFormat(locales, { weekday: 'long', day: 'numeric', month: 'long', year: 'numeric', hour: 'numeric', minute: '2-digit', timeZoneName: 'short' });
  for (const time of document.querySelectorAll('time[data-local]')) {
    time.textContent = format.format(new Date(time.dateTime));
    time.closest('[data-local-line]').hidden = false;
  }
  for (const button of document.querySelectorAll('button[data-copy]')) {
    button.hidden = !navigator.clipboard;
    button.addEventListener('click', () => {
      navigator.clipboard.writeText(document.getElementById(button.dataset.copy).value).then(() => {
        button.textContent = button.dataset.copied;
      });
    });
  }
})();
`;

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

/** The page's policy: nothing but its own inline style and script (by hash), form posts to itself, never framed. */
export const REGISTRATION_PAGE_HEADERS: Record<string, string> = {
  'Content-Security-Policy': [
    "default-src 'none'",
    `script-src ${sha256(SCRIPT)}`,
    `style-src ${sha256(STYLE)}`,
    "img-src 'self' data:",
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; '),
  // Not no-referrer: that would make the form's own POST say `Origin: null`, which the CSRF check refuses.
  'Referrer-Policy': 'same-origin',
  'X-Content-Type-Options': 'nosniff',
  'Cache-Control': 'no-store',
};

/** The HTML of one screen of the page in `locale`; `languageLink(l)` is this page's address in language `l`. */
export function renderRegistrationPage(locale: PageLocale, view: RegistrationPageView, languageLink: (l: PageLocale) => string): string {
  const t = (key: PageMessageKey, params: Record<string, string | number> = {}) => escapeHtml(pageText(locale, key, params));
  const title = documentTitle(view, (key, params) => pageText(locale, key, params));
  const body = view.kind === 'message' ? `<h1>${t(view.title)}</h1><p>${t(view.text)}</p>` : webinarScreen(view, t);
  const languages = PAGE_LOCALES.map((l) =>
    l === locale
      ? `<a aria-current="true" lang="${l}">${escapeHtml(pageText(l, 'lang.name'))}</a>`
      : `<a href="${escapeHtml(languageLink(l))}" lang="${l}" hreflang="${l}">${escapeHtml(pageText(l, 'lang.name'))}</a>`,
  ).join(' · ');
  return `<!doctype html>
<html lang="${locale}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<link rel="icon" href="data:,">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
<nav aria-label="${t('lang.choose')}">${languages}</nav>
<script>${SCRIPT}</script>
</body>
</html>
`;
}

type Translate = (key: PageMessageKey, params?: Record<string, string | number>) => string;

function documentTitle(view: RegistrationPageView, text: Translate): string {
  if (view.kind === 'message') return text(view.title);
  return text(view.kind === 'form' ? 'title.register' : 'title.registered', { title: view.webinar.title });
}

function webinarScreen(view: Exclude<RegistrationPageView, { kind: 'message' }>, t: Translate): string {
  const { webinar } = view;
  const head = `<p class="eyebrow">${t('eyebrow')}</p>
<h1>${escapeHtml(webinar.title)}</h1>
<div class="when">
<p class="label">${t('starts')}</p>
<p class="local" data-local-line hidden><time data-local datetime="${escapeHtml(webinar.startsAt)}">${escapeHtml(webinar.startsAt)}</time> ${t('yourTime')}</p>
<p class="zone" data-testid="webinar-zone">${t('webinarZone', { time: webinar.zonedStart, zone: webinar.zone })}</p>
<p class="duration">${t('duration', { minutes: webinar.durationMinutes })}</p>
</div>`;
  if (view.kind === 'registered') {
    const link = view.joinUrl
      ? `<p>${t('done.text')}</p>
<div class="link-row"><input type="url" id="join-link" readonly value="${escapeHtml(view.joinUrl)}" aria-label="${t('done.title', { name: view.name })}">
<button type="button" class="secondary" data-copy="join-link" data-copied="${t('done.copied')}" hidden>${t('done.copy')}</button></div>
<p class="hint">${t('done.open')}</p>
<div class="actions"><a class="button" href="${escapeHtml(view.joinUrl)}" data-testid="join-link">${t('done.join')}</a>${
          view.calendarUrl
            ? `<a class="button secondary" href="${escapeHtml(view.calendarUrl)}" download data-testid="calendar">${t('done.calendar')}</a>`
            : ''
        }</div>`
      : `<p>${t('done.open')}</p>`;
    return `${head}<h2 data-testid="registered">${t('done.title', { name: view.name })}</h2>${link}`;
  }
  if (view.kind === 'already-registered') {
    return `${head}<h2 data-testid="already-registered">${t('already.title')}</h2><p>${t('already.text')}</p>`;
  }
  if (webinar.status === 'ended' || webinar.status === 'cancelled') {
    return `${head}<p class="notice" data-testid="closed">${t(webinar.status === 'ended' ? 'closed.ended' : 'closed.cancelled')}</p>`;
  }
  const field = (name: FormField, type: string, autocomplete: string) => {
    const invalid = view.invalid.includes(name);
    const errorId = `${name}-error`;
    return `<div><label for="${name}">${t(name)}</label>
<input type="${type}" id="${name}" name="${name}" autocomplete="${autocomplete}" required maxlength="${name === 'email' ? 254 : 200}" value="${escapeHtml(view.values[name])}"${
      invalid ? ` aria-invalid="true" aria-describedby="${errorId}"` : ''
    }>${invalid ? `<p class="field-error" id="${errorId}">${t(name === 'name' ? 'error.name' : 'error.email')}</p>` : ''}</div>`;
  };
  return `${head}${webinar.status === 'live' ? `<p class="notice live">${t('live')}</p>` : ''}
<form method="post" action="${escapeHtml(view.action)}" novalidate>
${view.invalid.length > 0 ? `<p class="summary" role="alert">${t('error.summary')}</p>` : ''}
${field('name', 'text', 'name')}
${field('email', 'email', 'email')}
<div class="hp" aria-hidden="true"><label for="website">${t('honeypot')}</label><input type="text" id="website" name="website" tabindex="-1" autocomplete="off" value=""></div>
<div><button type="submit">${t('submit')}</button></div>
<p class="hint">${t('formHint')}</p>
</form>`;
}

/** Text made safe for HTML content and double-quoted attributes. */
export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}
