/** The languages of the registration page, English first (the fallback); the room page speaks the same three. */
export const PAGE_LOCALES = ['en', 'de', 'fr'] as const;

/** A language of the registration page. */
export type PageLocale = (typeof PAGE_LOCALES)[number];

/** The registration page's English texts; every other language has exactly these keys. */
const en = {
  'lang.name': 'English',
  'lang.choose': 'Language',
  eyebrow: 'Webinar registration',
  'title.register': 'Register: {title}',
  'title.registered': 'Registered: {title}',
  'title.notFound': 'Webinar not found',
  'title.limited': 'Too many attempts',
  'title.refused': 'Please try again',
  starts: 'Starts',
  yourTime: '(your time)',
  webinarZone: '{time} in the webinar’s time zone ({zone})',
  duration: '{minutes} minutes',
  live: 'Happening now: register to get your link and join.',
  'closed.ended': 'This webinar has ended. Registration is closed.',
  'closed.cancelled': 'This webinar was cancelled. Registration is closed.',
  name: 'Your name',
  email: 'Email',
  honeypot: 'Leave this field empty',
  submit: 'Register',
  formHint: 'You get your personal join link on the next screen.',
  'error.name': 'Enter your name (one line, up to 200 characters).',
  'error.email': 'Enter a valid email address.',
  'error.summary': 'Please correct the marked fields.',
  'done.title': 'You’re registered, {name}',
  'done.text': 'This is your personal join link. It is yours alone: keep it, and don’t share it.',
  'done.open': 'Open it at the start time to join the webinar.',
  'done.join': 'Open my join link',
  'done.copy': 'Copy link',
  'done.copied': 'Copied',
  'done.calendar': 'Add to calendar (.ics)',
  'already.title': 'This email address is already registered',
  'already.text':
    'Use the personal join link you got when you registered. For your security it is shown only once; ask the organiser if you lost it.',
  'notFound.text': 'There is no webinar registration at this address. Check the link, or ask the organiser to send it again.',
  'limited.text': 'Too many registrations came from your network just now. Wait a minute, then try again.',
  'refused.text': 'The form was sent from another site. Open the registration page and send it from there.',
} as const;

/** A message of the registration page. */
export type PageMessageKey = keyof typeof en;

const de: Record<PageMessageKey, string> = {
  'lang.name': 'Deutsch',
  'lang.choose': 'Sprache',
  eyebrow: 'Anmeldung zum Webinar',
  'title.register': 'Anmelden: {title}',
  'title.registered': 'Angemeldet: {title}',
  'title.notFound': 'Webinar nicht gefunden',
  'title.limited': 'Zu viele Versuche',
  'title.refused': 'Bitte erneut versuchen',
  starts: 'Beginn',
  yourTime: '(Ihre Zeit)',
  webinarZone: '{time} in der Zeitzone des Webinars ({zone})',
  duration: '{minutes} Minuten',
  live: 'Läuft gerade: Melden Sie sich an, um Ihren Link zu erhalten und teilzunehmen.',
  'closed.ended': 'Dieses Webinar ist vorbei. Die Anmeldung ist geschlossen.',
  'closed.cancelled': 'Dieses Webinar wurde abgesagt. Die Anmeldung ist geschlossen.',
  name: 'Ihr Name',
  email: 'E-Mail',
  honeypot: 'Dieses Feld bitte leer lassen',
  submit: 'Anmelden',
  formHint: 'Ihren persönlichen Teilnahmelink erhalten Sie auf der nächsten Seite.',
  'error.name': 'Geben Sie Ihren Namen ein (eine Zeile, bis zu 200 Zeichen).',
  'error.email': 'Geben Sie eine gültige E-Mail-Adresse ein.',
  'error.summary': 'Bitte korrigieren Sie die markierten Felder.',
  'done.title': 'Sie sind angemeldet, {name}',
  'done.text': 'Das ist Ihr persönlicher Teilnahmelink. Er gilt nur für Sie: Bewahren Sie ihn auf und geben Sie ihn nicht weiter.',
  'done.open': 'Öffnen Sie ihn zur Startzeit, um am Webinar teilzunehmen.',
  'done.join': 'Meinen Teilnahmelink öffnen',
  'done.copy': 'Link kopieren',
  'done.copied': 'Kopiert',
  'done.calendar': 'In den Kalender (.ics)',
  'already.title': 'Diese E-Mail-Adresse ist bereits angemeldet',
  'already.text':
    'Verwenden Sie den persönlichen Teilnahmelink aus Ihrer Anmeldung. Zu Ihrer Sicherheit wird er nur einmal angezeigt; fragen Sie den Veranstalter, falls er verloren ging.',
  'notFound.text':
    'Unter dieser Adresse gibt es keine Webinar-Anmeldung. Prüfen Sie den Link oder bitten Sie den Veranstalter, ihn erneut zu senden.',
  'limited.text': 'Aus Ihrem Netzwerk kamen gerade zu viele Anmeldungen. Warten Sie eine Minute und versuchen Sie es dann erneut.',
  'refused.text': 'Das Formular wurde von einer anderen Website gesendet. Öffnen Sie die Anmeldeseite und senden Sie es von dort.',
};

const fr: Record<PageMessageKey, string> = {
  'lang.name': 'Français',
  'lang.choose': 'Langue',
  eyebrow: 'Inscription au webinaire',
  'title.register': 'S’inscrire : {title}',
  'title.registered': 'Inscrit : {title}',
  'title.notFound': 'Webinaire introuvable',
  'title.limited': 'Trop de tentatives',
  'title.refused': 'Veuillez réessayer',
  starts: 'Début',
  yourTime: '(votre heure)',
  webinarZone: '{time} dans le fuseau horaire du webinaire ({zone})',
  duration: '{minutes} minutes',
  live: 'En cours : inscrivez-vous pour obtenir votre lien et participer.',
  'closed.ended': 'Ce webinaire est terminé. Les inscriptions sont closes.',
  'closed.cancelled': 'Ce webinaire a été annulé. Les inscriptions sont closes.',
  name: 'Votre nom',
  email: 'E-mail',
  honeypot: 'Laissez ce champ vide',
  submit: 'S’inscrire',
  formHint: 'Vous obtenez votre lien personnel de participation à l’écran suivant.',
  'error.name': 'Saisissez votre nom (une ligne, 200 caractères au plus).',
  'error.email': 'Saisissez une adresse e-mail valide.',
  'error.summary': 'Veuillez corriger les champs signalés.',
  'done.title': 'Vous êtes inscrit, {name}',
  'done.text': 'Voici votre lien personnel de participation. Il n’est valable que pour vous : gardez-le et ne le partagez pas.',
  'done.open': 'Ouvrez-le à l’heure de début pour rejoindre le webinaire.',
  'done.join': 'Ouvrir mon lien de participation',
  'done.copy': 'Copier le lien',
  'done.copied': 'Copié',
  'done.calendar': 'Ajouter au calendrier (.ics)',
  'already.title': 'Cette adresse e-mail est déjà inscrite',
  'already.text':
    'Utilisez le lien personnel reçu lors de votre inscription. Pour votre sécurité, il n’est affiché qu’une fois ; demandez à l’organisateur si vous l’avez perdu.',
  'notFound.text': 'Aucune inscription à un webinaire à cette adresse. Vérifiez le lien ou demandez à l’organisateur de vous le renvoyer.',
  'limited.text': 'Trop d’inscriptions viennent d’arriver depuis votre réseau. Patientez une minute, puis réessayez.',
  'refused.text': 'Le formulaire a été envoyé depuis un autre site. Ouvrez la page d’inscription et envoyez-le depuis celle-ci.',
};

const CATALOGUES: Record<PageLocale, Record<PageMessageKey, string>> = { en, de, fr };

/** The text of `key` in `locale` with `{name}` placeholders filled (values are not escaped here). */
export function pageText(locale: PageLocale, key: PageMessageKey, params: Record<string, string | number> = {}): string {
  return CATALOGUES[locale][key].replace(/\{(\w+)\}/g, (whole, name: string) => (name in params ? String(params[name]) : whole));
}

/** The supported locale a language tag names (`de-AT` is `de`), or null. */
export function matchPageLocale(tag: string | undefined): PageLocale | null {
  const base = tag?.trim().toLowerCase().split(/[-_]/)[0] ?? '';
  return PAGE_LOCALES.find((l) => l === base) ?? null;
}

/**
 * The page's language as the room page picks it: `?lang=` when given (an unknown one gets English), else the
 * most preferred language of `Accept-Language` that the page speaks, else English.
 */
export function pickPageLocale(lang: string | undefined, acceptLanguage: string | undefined): PageLocale {
  if (lang) return matchPageLocale(lang) ?? 'en';
  const ranked = (acceptLanguage ?? '')
    .split(',')
    .map((part, index) => {
      const [tag, ...params] = part.trim().split(';');
      const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
      return { tag, q: q === undefined ? 1 : Number(q), index };
    })
    .filter((entry) => entry.tag && entry.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index);
  for (const { tag } of ranked) {
    const locale = matchPageLocale(tag);
    if (locale) return locale;
  }
  return 'en';
}
