import type { Bundle, ZObject } from 'zapier-platform-core';
import { apiUrl } from './api';
import { raiseProblem } from './middleware';

/** What a dehydrated recording file keeps: the recording's id and its signed download URL. */
export type RecordingFileInput = { recording_id: string; download_url: string };

/**
 * Hydrator: downloads a recording by its signed URL (no API key needed) and stashes it in Zapier's file store, so a
 * following step (Google Drive, Dropbox) receives the video itself. A link that has expired meanwhile (24 h) falls back
 * to the key-authenticated download.
 */
export async function recordingFile(z: ZObject, bundle: Bundle): Promise<string> {
  const { recording_id: recordingId, download_url: downloadUrl } = bundle.inputData as RecordingFileInput;
  let response = await z.request({ url: downloadUrl, raw: true, skipThrowForStatus: true });
  if (response.status === 401) {
    await response.text(); // drain the refusal so its connection is freed
    response = await z.request({
      url: apiUrl(bundle, `/recordings/${encodeURIComponent(recordingId)}/download`),
      raw: true,
      skipThrowForStatus: true,
    });
  }
  if (response.status >= 400) raiseProblem(z, { status: response.status, content: await response.text() });
  return z.stashFile(Promise.resolve(response));
}
