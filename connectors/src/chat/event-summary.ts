import type { WebhookEvent } from '../webhooks/signature';

/** Where a notification's button points: the meeting page, or the recording's download. */
export interface EventLinks {
  meeting?: string;
  recording?: string;
}

/** What a chat notification says about an event, whatever the chat tool. */
export interface EventSummary {
  /** One line, plain text: the notification's fallback and heading. */
  headline: string;
  /** Label-value pairs shown under the heading. */
  facts: { title: string; value: string }[];
  /** Extra paragraph (a summary's TL;DR). */
  body?: string;
  button?: { label: string; url: string };
}

interface MeetingRef {
  title?: string;
  code?: string;
  started_at?: string | null;
  ended_at?: string | null;
}

// Bidi embeddings, overrides and isolates (they can make "exe.pdf" out of "fdp.exe") and control characters
// other than line breaks and tabs; events stored before the service refused them may still carry them.
const UNSAFE_IN_CHAT = /(?![\t\n\r])[\p{Cc}\u202A-\u202E\u2066-\u2069]/gu;

/** `text` without the characters that must never reach a chat message (bidi overrides, control characters). */
export function neutralizeText(text: string): string {
  return text.replace(UNSAFE_IN_CHAT, '');
}

/** Describes an svc event for people: a headline, a few facts and where to click; no bidi override or control character survives. */
export function summarizeEvent(event: WebhookEvent, links: EventLinks): EventSummary {
  const summary = describeEvent(event, links);
  return {
    ...summary,
    headline: neutralizeText(summary.headline),
    facts: summary.facts.map((f) => ({ title: neutralizeText(f.title), value: neutralizeText(f.value) })),
    ...(summary.body !== undefined ? { body: neutralizeText(summary.body) } : {}),
  };
}

function describeEvent(event: WebhookEvent, links: EventLinks): EventSummary {
  const data = event.data as Record<string, Record<string, unknown> | undefined>;
  const meeting = (data.meeting ?? {}) as MeetingRef;
  const title = meeting.title ?? 'A meeting';
  const meetingFacts = meeting.code ? [{ title: 'Meeting code', value: meeting.code }] : [];
  const openMeeting = links.meeting ? { label: 'Open meeting', url: links.meeting } : undefined;
  switch (event.type) {
    case 'meeting.started':
      return {
        headline: `${title} has started`,
        facts: meetingFacts,
        button: links.meeting ? { label: 'Join', url: links.meeting } : undefined,
      };
    case 'meeting.ended':
      return { headline: `${title} has ended`, facts: [...meetingFacts, ...durationFact(meeting)], button: openMeeting };
    case 'recording.ready': {
      const seconds = Number(data.recording?.duration_seconds ?? 0);
      return {
        headline: `The recording of ${title} is ready`,
        facts: [...meetingFacts, { title: 'Length', value: clock(seconds) }],
        button: links.recording ? { label: 'Download recording', url: links.recording } : openMeeting,
      };
    }
    case 'transcript.ready':
      return {
        headline: `The transcript of ${title} is ready`,
        facts: [
          ...meetingFacts,
          { title: 'Language', value: String(data.transcript?.language ?? '') },
          { title: 'Segments', value: String(data.transcript?.segment_count ?? 0) },
        ],
        button: openMeeting,
      };
    case 'summary.ready':
      return {
        headline: `The summary of ${title} is ready`,
        facts: meetingFacts,
        body: String(data.summary?.tldr ?? ''),
        button: openMeeting,
      };
    case 'registration.created': {
      const registration = data.registration ?? {};
      const webinar = data.webinar ?? {};
      return {
        headline: `${String(registration.name ?? 'Someone')} registered for ${String(webinar.title ?? title)}`,
        facts: [
          { title: 'Email', value: String(registration.email ?? '') },
          { title: 'Webinar', value: String(webinar.slug ?? '') },
        ],
        button: openMeeting,
      };
    }
    default:
      return { headline: `${event.type}: ${title}`, facts: meetingFacts, button: openMeeting };
  }
}

function durationFact(meeting: MeetingRef): { title: string; value: string }[] {
  if (!meeting.started_at || !meeting.ended_at) return [];
  const seconds = Math.max(0, Math.round((Date.parse(meeting.ended_at) - Date.parse(meeting.started_at)) / 1000));
  return [{ title: 'Duration', value: clock(seconds) }];
}

/** Seconds as h:mm:ss or m:ss. */
function clock(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = String(seconds % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}
