import type { Caption } from '../../protocol';

/** Characters one speaker's line keeps (the latest words; older ones give way with an ellipsis). */
const LINE_CHARS = 140;

/** A speaker's line on screen: their latest words, and whether the last of them may still change. */
export interface CaptionLine {
  speaker: string | null;
  participantId: string | null;
  text: string;
  final: boolean;
}

/**
 * The captions on screen: at most `max` lines, one per turn of a speaker. A speaker's captions join their line
 * while nobody else speaks (a recognizer sends an utterance per pause, often a few words); a partial caption is
 * replaced by the speaker's next one.
 */
export class CaptionLines {
  private lines: (CaptionLine & { settled: string })[] = [];

  constructor(private readonly max: number) {}

  add(caption: Caption): void {
    const last = this.lines.at(-1);
    if (last && last.participantId === caption.participant_id && last.speaker === caption.speaker) {
      last.text = clip(`${last.settled} ${caption.text}`.trim());
      last.final = caption.final;
      if (caption.final) last.settled = last.text;
    } else {
      const text = clip(caption.text);
      this.lines.push({
        speaker: caption.speaker,
        participantId: caption.participant_id,
        text,
        final: caption.final,
        settled: caption.final ? text : '',
      });
    }
    if (this.lines.length > this.max) this.lines = this.lines.slice(-this.max);
  }

  /** The lines to show, oldest first. */
  list(): CaptionLine[] {
    return this.lines.map(({ speaker, participantId, text, final }) => ({ speaker, participantId, text, final }));
  }

  clear(): void {
    this.lines = [];
  }
}

function clip(text: string): string {
  if (text.length <= LINE_CHARS) return text;
  const tail = text.slice(-LINE_CHARS);
  return `…${tail.slice(tail.indexOf(' ') + 1)}`;
}
