/** A piece of a chat message: plain text, or a web address that may become a link (`href` is its parsed form). */
export type ChatSegment = { text: string } | { text: string; href: string };

// Candidates only: every match is parsed again with URL and kept as a link only when its scheme is http or https.
const CANDIDATE = /\bhttps?:\/\/[^\s<>"'`]+/gi;
const TRAILING_PUNCTUATION = /[.,;:!?*]+$/;

/** Drops what a sentence puts after an address (a full stop, a closing bracket the address did not open). */
function trimAddress(candidate: string): string {
  let text = candidate.replace(TRAILING_PUNCTUATION, '');
  for (const [open, close] of [
    ['(', ')'],
    ['[', ']'],
    ['{', '}'],
  ] as const) {
    while (text.endsWith(close) && text.split(close).length > text.split(open).length) {
      text = text.slice(0, -1).replace(TRAILING_PUNCTUATION, '');
    }
  }
  return text;
}

/** The http(s) address `text` names, or null (any other scheme, or not an address). */
export function webAddress(text: string): string | null {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

/** Splits a chat message into plain text and http(s) addresses; everything else (javascript:, data:, markup) stays text. */
export function chatSegments(message: string): ChatSegment[] {
  const segments: ChatSegment[] = [];
  let plain = '';
  let at = 0;
  for (const match of message.matchAll(CANDIDATE)) {
    const address = trimAddress(match[0]);
    const href = webAddress(address);
    const start = match.index;
    plain += message.slice(at, start);
    at = start;
    if (!href) continue;
    if (plain) segments.push({ text: plain });
    segments.push({ text: address, href });
    plain = '';
    at = start + address.length;
  }
  plain += message.slice(at);
  if (plain) segments.push({ text: plain });
  return segments;
}
