import { parsePocketsphinxOutput } from '../transcripts/pocketsphinx';
import type { TranscriptSegment } from '../transcripts/transcripts.repo';
import { splitClauses } from './clauses';
import { summarizeExtractive } from './extractive';

const segment = (text: string, start = 0, end = 10, speaker: string | null = 'Robert Brown'): TranscriptSegment => ({
  start,
  end,
  speaker,
  participant_id: null,
  text,
});

describe('splitClauses', () => {
  const names = ['grace', 'hill', 'henry', 'robert', 'brown'];
  it('splits an unpunctuated run-on before discourse markers, decisions, requests and "NAME will", not after a binding word', () => {
    const run =
      'okay so the billing service passed its tests after a long discussion we decided to launch it on friday and grace will ' +
      'write the release notes by thursday can you check the logs tomorrow henry i think that we decided well';
    expect(splitClauses([segment(run)], names).map((c) => c.text)).toEqual([
      'okay so the billing service passed its tests after a long discussion',
      'we decided to launch it on friday',
      'and grace will write the release notes by thursday',
      'can you check the logs tomorrow henry',
      'i think that we decided well',
    ]);
  });

  it('ends clauses at sentence punctuation and times each by its word position in the segment', () => {
    const clauses = splitClauses([segment('we ship on friday. robert will tell the customers', 20, 28)], names);
    expect(clauses.map((c) => [c.text, c.start, c.segment])).toEqual([
      ['we ship on friday', 20, 0],
      ['robert will tell the customers', 23.56, 0],
    ]);
  });

  it('joins a piece too short to stand alone to the next clause', () => {
    expect(splitClauses([segment('okay we decided to ship it')], names).map((c) => c.text)).toEqual(['okay we decided to ship it']);
  });
});

describe('pocketsphinx pauses', () => {
  it('end a sentence inside an utterance when the silence lasts 0.15 s or more', () => {
    const output = ['<s> 0.0 0.1 1', 'we 0.11 0.3 1', 'ship 0.31 0.6 1', '<sil> 0.61 0.63 1', 'today 0.64 1.0 1'];
    output.push('<sil> 1.01 1.3 1', 'grace 1.31 1.6 1', 'will 1.61 1.8 1', 'write 1.81 2.0 1', '<sil> 2.01 2.5 1', '</s> 2.51 2.6 1');
    expect(parsePocketsphinxOutput(output.join('\n'))[0]!.text).toBe('we ship today. grace will write');
  });
});

describe('summarizeExtractive on run-on speech', () => {
  // What pocketsphinx made of the meeting spoken by flite without pauses: two 10-second run-ons.
  const input = {
    meetingDate: '2026-11-23T10:00:00Z',
    participants: ['Robert Brown', 'Grace Hill'],
    segments: [
      segment(
        'good morning everyone thanks for joining the release planning meeting the new billing service passed all of its tests on the ' +
          'staging server last night after a long discussion we decided to launch the billing service on friday',
        0,
        11.4,
      ),
      segment(
        'grace will write the release notes by thursday the support team will watch the error logs during the first week',
        11.6,
        17.2,
        'Grace Hill',
      ),
    ],
  };
  const summary = summarizeExtractive(input);

  it('finds the decision and the action item with owner and due day inside the run-ons, with segment and time', () => {
    expect(summary.decisions).toEqual([{ text: 'We decided to launch the billing service on friday.', cite: [0], start_seconds: 8.7 }]);
    expect(summary.action_items).toEqual([
      { text: 'Grace will write the release notes by thursday.', owner: 'Grace Hill', due: '2026-11-26', cite: [1], start_seconds: 11.6 },
    ]);
  });

  it('writes a TL;DR of at most three sentences that is not the whole transcript', () => {
    const sentences = summary.tldr.split(/(?<=[.…]) /);
    expect(sentences.length).toBeGreaterThan(0);
    expect(sentences.length).toBeLessThanOrEqual(3);
    const words = (text: string) => text.split(/\s+/).length;
    expect(words(summary.tldr)).toBeLessThan(words(input.segments.map((s) => s.text).join(' ')) * 0.75);
    expect(summary.tldr).toContain('We decided to launch the billing service on friday.');
  });

  it('asks "can you" of the other one in a meeting of two, and of the named person otherwise', () => {
    const asked = summarizeExtractive({
      ...input,
      segments: [segment('okay can you send me the final images tomorrow', 0, 4, 'Robert Brown'), segment('sure', 5, 6, 'Grace Hill')],
    });
    expect(asked.action_items).toEqual([
      { text: 'Can you send me the final images tomorrow.', owner: 'Grace Hill', due: '2026-11-24', cite: [0], start_seconds: 0 },
    ]);
    const notAsked = summarizeExtractive({
      ...input,
      segments: [segment('can you hear me', 0, 2), segment('yes we can', 3, 4, 'Grace Hill')],
    });
    expect(notAsked.action_items).toEqual([]);
  });
});
