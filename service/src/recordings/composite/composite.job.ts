import fs from 'node:fs/promises';
import { PermanentJobError, type JobHandler } from '../../jobs/job.worker';
import type { Logger } from '../../shared/logger';
import type { RecordingsService, RenderCompositeJobPayload } from '../recordings.service';
import { RECORDING_LAYOUTS, type RecordingLayout } from './plan';
import { probeMedia, renderComposite, type RenderOptions } from './render';

/** What the render_composite job needs. */
export interface RenderCompositeJobDeps {
  recordings: RecordingsService;
  logger: Logger;
  /** Render settings besides the layout (frame, preset, threads); defaults in render.ts. */
  render?: Omit<RenderOptions, 'layout' | 'signal'>;
}

/**
 * The `render_composite` job: renders a composite recording's MP4 from its tracks recording (render.ts), checks it
 * with ffprobe, and marks the composite ready, which emits recording.ready. A render or check that fails marks the
 * composite failed with the reason (no retry: the same input fails the same way); a stop of the service aborts
 * ffmpeg and the job runs again at the next start (the composite stays processing meanwhile).
 */
export class RenderCompositeJob implements JobHandler<RenderCompositeJobPayload> {
  readonly kind = 'render_composite';

  constructor(private readonly deps: RenderCompositeJobDeps) {}

  /** Renders the composite named in the payload. */
  async run(payload: RenderCompositeJobPayload, job: { id: string; signal: AbortSignal }): Promise<void> {
    const source = this.deps.recordings.compositeSource(payload.recording_id);
    if (source.status !== 'processing') return;
    const layout: RecordingLayout = (RECORDING_LAYOUTS as readonly string[]).includes(payload.layout)
      ? (payload.layout as RecordingLayout)
      : 'active_speaker';
    const started = Date.now();
    const partial = `${source.outFile}.part`;
    try {
      const recorded = (await probeMedia(source.tracksFile)).duration;
      const rendered = await renderComposite(source.tracksFile, source.tracks, recorded, partial, {
        ...this.deps.render,
        layout,
        signal: job.signal,
      });
      await fs.rename(partial, source.outFile);
      this.deps.recordings.markReady(payload.recording_id, {
        fileName: source.outFile.split('/').pop()!,
        contentType: 'video/mp4',
        sizeBytes: rendered.sizeBytes,
        durationSeconds: Math.max(1, Math.round(rendered.durationSeconds)),
      });
      this.deps.logger.info('composite rendered', {
        job_id: job.id,
        recording_id: payload.recording_id,
        layout,
        seconds: Math.round(recorded),
        took_ms: Date.now() - started,
      });
    } catch (error) {
      await fs.rm(partial, { force: true });
      if (job.signal.aborted) throw error;
      const reason = error instanceof Error ? error.message : String(error);
      this.deps.recordings.markFailed(payload.recording_id, reason);
      throw new PermanentJobError(reason);
    }
  }
}
