import fs from 'node:fs';
import path from 'node:path';
import { headingsOf, TOC_END, TOC_START, withToc } from './support/readme-toc';

const README = fs.readFileSync(path.resolve(__dirname, '../README.md'), 'utf8');

describe('the README', () => {
  it('has a table of contents that matches its headings (regenerate: npx tsx test/support/readme-toc.ts README.md)', () => {
    expect(README).toContain(TOC_START);
    expect(README).toContain(TOC_END);
    expect(README).toBe(withToc(README));
  });

  it('links only to headings it has', () => {
    const anchors = new Set(headingsOf(README).map((h) => h.anchor));
    const missing = [...README.matchAll(/\]\(#([^)]+)\)/g)].map((m) => m[1]!).filter((a) => !anchors.has(a));
    expect(missing).toEqual([]);
  });

  it('makes GitHub’s anchors (punctuation dropped, repeats numbered) and skips code blocks', () => {
    const sample = '## API keys: the `svc` CLI\n```sh\n# not a heading\n```\n### Run it (`deploy/svc.service`)\n## Notes\n## Notes\n';
    expect(headingsOf(sample).map((h) => h.anchor)).toEqual(['api-keys-the-svc-cli', 'run-it-deploysvcservice', 'notes', 'notes-1']);
  });
});
