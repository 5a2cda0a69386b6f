import { runProgram } from './audio';
import type { SpeechToText, SpeechTrack } from './speech-to-text';
import type { TranscriptSegment } from './transcripts.repo';

/** Where Debian's pocketsphinx-en-us puts the US English model. */
export const POCKETSPHINX_MODEL_DIR = '/usr/share/pocketsphinx/model/en-us';

/** A pause between two words longer than this starts a new segment even inside one utterance. */
const MAX_PAUSE_S = 1.2;
/** A silence inside an utterance at least this long ends a sentence (flite pauses 0.18-0.4 s between sentences, 0.02-0.07 s at commas). */
const SENTENCE_PAUSE_S = 0.15;
/** Fillers and markers pocketsphinx prints in its word timings that are not words. */
const NOT_WORDS = /^(<s>|<\/s>|<sil>|\[NOISE\]|\[SPEECH\]|\+\+.*\+\+|\[.*\])$/i;

/** One word of pocketsphinx's `-time yes` output. */
interface TimedWord {
  word: string;
  start: number;
  end: number;
  /** A long pause follows it: it ends a sentence. */
  stop?: boolean;
}

/**
 * Parses what `pocketsphinx_continuous -time yes` prints: per utterance a line of text, then one line per word
 * `word start end confidence` bracketed by `<s>`/`</s>`. Each utterance becomes a segment (split again at long
 * pauses); a shorter pause (`<sil>` of 0.15 s or more) inside it ends a sentence with a full stop, so run-on speech
 * keeps its sentence ends for the summarizer; pronunciation variants (`on(2)`) lose their suffix and fillers are dropped.
 */
export function parsePocketsphinxOutput(
  output: string,
  speaker: string | null = null,
  participantId: string | null = null,
): TranscriptSegment[] {
  const segments: TranscriptSegment[] = [];
  let words: TimedWord[] = [];
  const flush = () => {
    if (words.length > 0)
      segments.push({
        start: words[0]!.start,
        end: words.at(-1)!.end,
        speaker,
        participant_id: participantId,
        text: words.map((w, i) => (w.stop && i < words.length - 1 ? `${w.word}.` : w.word)).join(' '),
      });
    words = [];
  };
  for (const line of output.split(/\r?\n/)) {
    const match = /^(\S+) (\d+(?:\.\d+)?) (\d+(?:\.\d+)?) (-?\d+(?:\.\d+)?(?:e-?\d+)?)$/.exec(line.trim());
    if (!match) continue;
    const [, raw, start, end] = match;
    if (raw === '<s>') flush();
    if (NOT_WORDS.test(raw!)) {
      if (raw === '</s>') flush();
      if (raw === '<sil>' && words.length > 0 && Number(end) - Number(start) >= SENTENCE_PAUSE_S) words.at(-1)!.stop = true;
      continue;
    }
    const word: TimedWord = { word: raw!.replace(/\(\d+\)$/, ''), start: Number(start), end: Number(end) };
    if (words.length > 0 && word.start - words.at(-1)!.end > MAX_PAUSE_S) flush();
    words.push(word);
  }
  flush();
  return segments;
}

/** The default engine: Debian's pocketsphinx with its US English model, run as a child process, fully offline. */
export class PocketsphinxSpeechToText implements SpeechToText {
  readonly name = 'pocketsphinx';

  constructor(private readonly modelDir = POCKETSPHINX_MODEL_DIR) {}

  /** Runs pocketsphinx_continuous on the track and parses its word timings. */
  async transcribe(track: SpeechTrack, signal?: AbortSignal): Promise<TranscriptSegment[]> {
    const m = this.modelDir;
    const args = ['-infile', track.wavPath, '-hmm', `${m}/en-us`, '-lm', `${m}/en-us.lm.bin`, '-dict', `${m}/cmudict-en-us.dict`];
    const { stdout } = await runProgram('pocketsphinx_continuous', [...args, '-time', 'yes', '-logfn', '/dev/null'], signal);
    return parsePocketsphinxOutput(stdout, track.speaker, track.participantId);
  }
}
