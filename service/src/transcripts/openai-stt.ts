import fs from 'node:fs/promises';
import path from 'node:path';
import type { SttSettings } from '../config';
import type { SpeechToText, SpeechTrack } from './speech-to-text';
import type { TranscriptSegment } from './transcripts.repo';

/** The optional engine: uploads each track (multipart) and reads the `verbose_json` segments back. */
export class OpenAiSpeechToText implements SpeechToText {
  readonly name = 'openai';

  constructor(private readonly settings: SttSettings) {}

  /** Sends the track's wav file to the endpoint; throws when it fails or answers without segments. */
  async transcribe(track: SpeechTrack, signal?: AbortSignal): Promise<TranscriptSegment[]> {
    const form = new FormData();
    form.append('file', new Blob([await fs.readFile(track.wavPath)], { type: 'audio/wav' }), path.basename(track.wavPath));
    form.append('model', this.settings.model);
    form.append('response_format', 'verbose_json');
    form.append('timestamp_granularities[]', 'segment');
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (this.settings.apiKey) headers.Authorization = `Bearer ${this.settings.apiKey}`;
    const res = await fetch(`${this.settings.url}/audio/transcriptions`, {
      method: 'POST',
      headers,
      body: form,
      signal: signal
        ? AbortSignal.any([signal, AbortSignal.timeout(this.settings.timeoutMs)])
        : AbortSignal.timeout(this.settings.timeoutMs),
    }).catch((err: unknown) => {
      throw new Error(`the speech-to-text endpoint could not be reached: ${(err as Error).message}`);
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`the speech-to-text endpoint answered ${res.status}`);
    return parseVerboseJson(text, track.speaker, track.participantId);
  }
}

/** The segments of a `verbose_json` transcription; throws when the body has none in the documented shape. */
export function parseVerboseJson(body: string, speaker: string | null, participantId: string | null = null): TranscriptSegment[] {
  let parsed: { segments?: { start?: unknown; end?: unknown; text?: unknown }[] };
  try {
    parsed = JSON.parse(body) as typeof parsed;
  } catch {
    throw new Error('the speech-to-text endpoint answered something other than JSON');
  }
  if (!Array.isArray(parsed.segments)) throw new Error('the speech-to-text endpoint answered without segments (verbose_json)');
  return parsed.segments.flatMap((s) => {
    const text = typeof s.text === 'string' ? s.text.trim() : '';
    if (!text || typeof s.start !== 'number' || typeof s.end !== 'number') return [];
    return [{ start: s.start, end: s.end, speaker, participant_id: participantId, text }];
  });
}
