import fs from 'node:fs';

/** Where the table of contents sits in the README. */
export const TOC_START = '<!-- toc: generated from the headings by `npx tsx test/support/readme-toc.ts README.md` -->';
export const TOC_END = '<!-- /toc -->';

/** A heading of the README: its level (2 or 3), text and GitHub anchor. */
export interface Heading {
  level: number;
  text: string;
  anchor: string;
}

/** GitHub's anchor for a heading's text: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchorOf(text: string, seen: Map<string, number>): string {
  const base = text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
  const count = seen.get(base) ?? 0;
  seen.set(base, count + 1);
  return count === 0 ? base : `${base}-${count}`;
}

/** The `##` and `###` headings outside code blocks, in order. */
export function headingsOf(markdown: string): Heading[] {
  const seen = new Map<string, number>();
  const headings: Heading[] = [];
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    if (fenced) continue;
    const match = /^(#{1,6})\s+(.+?)\s*#*\s*$/.exec(line);
    if (!match) continue;
    const anchor = anchorOf(match[2]!, seen);
    if (match[1]!.length === 2 || match[1]!.length === 3) headings.push({ level: match[1]!.length, text: match[2]!, anchor });
  }
  return headings;
}

/** The table of contents of `markdown`'s headings, as a nested list. */
export function tocOf(markdown: string): string {
  return headingsOf(markdown)
    .map((h) => `${h.level === 3 ? '  ' : ''}- [${h.text.replace(/([[\]])/g, '\\$1')}](#${h.anchor})`)
    .join('\n');
}

/** `markdown` with its table of contents (between TOC_START and TOC_END) made from its headings. */
export function withToc(markdown: string): string {
  const start = markdown.indexOf(TOC_START);
  const end = markdown.indexOf(TOC_END);
  if (start < 0 || end < start) throw new Error(`the README has no ${TOC_START} ... ${TOC_END} block`);
  // The block itself holds no heading, so the headings are the same before and after.
  return `${markdown.slice(0, start)}${TOC_START}\n\n${tocOf(markdown)}\n\n${markdown.slice(end)}`;
}

if (require.main === module) {
  const file = process.argv[2] ?? 'README.md';
  fs.writeFileSync(file, withToc(fs.readFileSync(file, 'utf8')));
}
