import type { Caption } from '../rooms/room.protocol';

/** How much the live transcripts keep; both have defaults. */
export interface LiveTranscriptLimits {
  /** Final captions kept per meeting, the latest; default 500. */
  linesPerMeeting?: number;
  /** Meetings kept, the most recently captioned; default 100. */
  meetings?: number;
}

/**
 * The final captions of live meetings, in memory and bounded: the latest lines of each meeting, for the
 * meetings captioned most recently. It is what agents read while a meeting runs; the durable transcript is
 * the recording's (transcripts/).
 */
export class LiveTranscripts {
  private readonly byMeeting = new Map<string, Caption[]>();
  private readonly linesPerMeeting: number;
  private readonly meetings: number;

  constructor(limits: LiveTranscriptLimits = {}) {
    this.linesPerMeeting = limits.linesPerMeeting ?? 500;
    this.meetings = limits.meetings ?? 100;
  }

  /** Adds a final caption to its meeting's transcript, dropping the oldest line or meeting past the limits. */
  add(meetingId: string, caption: Caption): void {
    const lines = this.byMeeting.get(meetingId) ?? [];
    // Re-inserting keeps the Map in order of the latest caption, so the first key is the meeting to drop.
    this.byMeeting.delete(meetingId);
    this.byMeeting.set(meetingId, lines);
    lines.push(caption);
    if (lines.length > this.linesPerMeeting) lines.splice(0, lines.length - this.linesPerMeeting);
    while (this.byMeeting.size > this.meetings) this.byMeeting.delete(this.byMeeting.keys().next().value!);
  }

  /** The meeting's kept lines, oldest first (empty when none). */
  lines(meetingId: string): Caption[] {
    return [...(this.byMeeting.get(meetingId) ?? [])];
  }
}
