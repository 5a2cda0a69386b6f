import { CaptionLines } from '../web/room/src/features/captions/caption-lines';

const caption = (speaker: string, text: string, final = true) => ({
  participant_id: `prt_${speaker.toLowerCase()}`,
  speaker,
  text,
  final,
  at: '2026-11-26T21:00:00.000Z',
});

describe('the room’s captions bar: which lines it shows', () => {
  it("joins a speaker's utterances into one line while nobody else speaks, and keeps the last two speakers' lines", () => {
    const lines = new CaptionLines(2);
    lines.add(caption('Robert', 'grace will write'));
    lines.add(caption('Robert', 'the release notes'));
    expect(lines.list().map((l) => [l.speaker, l.text])).toEqual([['Robert', 'grace will write the release notes']]);
    lines.add(caption('Dana', 'we decided'));
    lines.add(caption('Robert', 'by thursday'));
    expect(lines.list().map((l) => [l.speaker, l.text])).toEqual([
      ['Dana', 'we decided'],
      ['Robert', 'by thursday'],
    ]);
  });

  it("replaces a speaker's partial words with their next caption, and keeps a long line to its latest words", () => {
    const lines = new CaptionLines(2);
    lines.add(caption('Dana', 'we decided'));
    lines.add(caption('Dana', 'to lunch', false));
    lines.add(caption('Dana', 'to launch the billing service'));
    expect(lines.list()).toEqual([
      { speaker: 'Dana', participantId: 'prt_dana', text: 'we decided to launch the billing service', final: true },
    ]);
    for (let i = 0; i < 30; i++) lines.add(caption('Dana', `word${i} and more`));
    const [line] = lines.list();
    expect(line!.text.length).toBeLessThanOrEqual(141);
    expect(line!.text).toMatch(/^….*word29 and more$/);
    lines.clear();
    expect(lines.list()).toEqual([]);
  });
});
