import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import { POCKETSPHINX_MODEL_DIR } from '../transcripts/pocketsphinx';
import { PCM_BYTES_PER_SECOND, type RecognizedText, type SpeechStream, type StreamingSpeechToText } from './speech-stream';

/** Silence pocketsphinx's own voice detector needs after speech before it ends an utterance (25 frames of 10 ms). */
const POSTSPEECH_FRAMES = 25;
/** Digital silence written at an utterance's end: the post-speech frames plus one 2048-sample read of pocketsphinx, with margin. */
const END_PADDING = Buffer.alloc(Math.round(PCM_BYTES_PER_SECOND * 0.5));

/**
 * Debian's pocketsphinx as a streaming engine: one long-running `pocketsphinx_continuous` per stream (the
 * model loads once, ~0.6 s of CPU and ~100 MB), reading raw PCM from a pipe. It prints a hypothesis when its
 * voice detector sees an utterance end; `endUtterance` writes half a second of silence so that happens at
 * once. It has no partial results: every result is final.
 */
export class PocketsphinxStreaming implements StreamingSpeechToText {
  readonly name = 'pocketsphinx';

  private checked: string | null | undefined;

  constructor(private readonly modelDir = POCKETSPHINX_MODEL_DIR) {}

  unavailableReason(): string | null {
    if (this.checked === undefined) {
      const runs = spawnSync('sh', ['-c', 'command -v pocketsphinx_continuous'], { stdio: 'ignore' }).status === 0;
      this.checked = !runs
        ? 'Captions are unavailable: pocketsphinx_continuous is not installed (run scripts/ensure-media-tools.sh)'
        : fs.existsSync(`${this.modelDir}/en-us.lm.bin`)
          ? null
          : `Captions are unavailable: no pocketsphinx model in ${this.modelDir}`;
    }
    return this.checked;
  }

  open(): SpeechStream {
    return new PocketsphinxStream(this.modelDir);
  }
}

class PocketsphinxStream implements SpeechStream {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly textListeners: ((result: RecognizedText) => void)[] = [];
  private readonly failureListeners: ((error: Error) => void)[] = [];
  private closed = false;
  private pending = '';
  private stderr = '';

  constructor(modelDir: string) {
    const m = modelDir;
    const args = ['-infile', '/dev/stdin', '-hmm', `${m}/en-us`, '-lm', `${m}/en-us.lm.bin`, '-dict', `${m}/cmudict-en-us.dict`];
    args.push('-vad_postspeech', String(POSTSPEECH_FRAMES), '-logfn', '/dev/null');
    // pocketsphinx opens its -infile by name; Node's stdin for a child is a socket, which /dev/stdin cannot open, so cat turns it into a pipe.
    this.child = spawn('sh', ['-c', 'cat | exec pocketsphinx_continuous "$@"', 'pocketsphinx', ...args], { stdio: 'pipe', detached: true });
    this.child.stdin.on('error', () => undefined);
    this.child.stdout.on('data', (chunk: Buffer) => this.read(chunk.toString()));
    this.child.stderr.on('data', (chunk: Buffer) => (this.stderr = (this.stderr + chunk.toString()).slice(-500)));
    this.child.once('error', (error) => this.fail(error));
    this.child.once('exit', (code) => this.fail(new Error(`pocketsphinx exited with code ${code}: ${this.stderr.trim()}`)));
  }

  write(pcm: Buffer): void {
    if (!this.closed) this.child.stdin.write(pcm);
  }

  endUtterance(): void {
    this.write(END_PADDING);
  }

  onText(listener: (result: RecognizedText) => void): void {
    this.textListeners.push(listener);
  }

  onFailure(listener: (error: Error) => void): void {
    this.failureListeners.push(listener);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.child.stdin.destroy();
    // The shell, cat and pocketsphinx share a process group.
    if (this.child.pid !== undefined && this.child.exitCode === null) {
      try {
        process.kill(-this.child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
  }

  private read(text: string): void {
    const lines = (this.pending + text).split('\n');
    this.pending = lines.pop() ?? '';
    for (const line of lines) {
      const words = line.trim();
      if (words) for (const listener of this.textListeners) listener({ text: words, final: true });
    }
  }

  private fail(error: Error): void {
    if (this.closed) return;
    this.close();
    for (const listener of this.failureListeners) listener(error);
  }
}
