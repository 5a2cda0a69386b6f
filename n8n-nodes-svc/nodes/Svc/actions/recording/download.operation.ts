import type { IDataObject, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';
import { svcApiRequestAllItems } from '../../../shared/transport';
import { meetingIdField, meetingSegment, type SvcOperation } from '../common';

const properties: INodeProperties[] = [
  meetingIdField,
  {
    displayName: 'Recording ID',
    name: 'recordingId',
    type: 'string',
    default: '',
    placeholder: 'rec_...',
    description:
      "The recording to download; empty downloads the meeting's newest ready composite MP4 (kind video), or its newest ready recording if it has no composite (recordings made before composites existed)",
  },
  {
    displayName: 'Put Output File in Field',
    name: 'binaryPropertyName',
    type: 'string',
    required: true,
    default: 'data',
    hint: 'The name of the output binary field to put the file in',
  },
];

/** Fields of recording: download. */
export const description = updateDisplayOptions({ show: { resource: ['recording'], operation: ['download'] } }, properties);

function fileNameOf(recording: IDataObject, contentType: string, disposition: unknown): string {
  const named = typeof disposition === 'string' ? /filename="?([^";]+)"?/i.exec(disposition)?.[1] : undefined;
  if (named) return named;
  const extension = contentType === 'video/x-matroska' ? 'mkv' : (/^(?:video|audio)\/([a-z0-9]+)/.exec(contentType)?.[1] ?? 'bin');
  return `${String(recording.id)}.${extension}`;
}

/**
 * The recording that an empty Recording ID means: the main room's (not a breakout room's) newest ready one that is not a
 * per-track source (`tracks`), which is what people share; only when the meeting has no other kind (older recordings)
 * its newest ready `tracks` file.
 */
export function defaultRecording(recordings: IDataObject[]): IDataObject | undefined {
  const playable = recordings.filter((r) => r.kind !== 'tracks' && !r.breakout_room_id);
  return (playable.length > 0 ? playable : recordings).find((r) => r.status === 'ready');
}

/** Downloads a ready recording through its signed `download_url` and outputs the recording as JSON with the file as binary data. */
export const execute: SvcOperation = async function (this, itemIndex) {
  const recordings = await svcApiRequestAllItems.call(this, `/meetings/${meetingSegment.call(this, itemIndex)}/recordings`);
  const recordingId = (this.getNodeParameter('recordingId', itemIndex, '') as string).trim();
  const recording = recordingId === '' ? defaultRecording(recordings) : recordings.find((r) => r.id === recordingId);
  if (recording === undefined) {
    const rendering = recordings.some((r) => r.kind !== 'tracks' && !r.breakout_room_id && r.status === 'processing');
    const message =
      recordingId !== ''
        ? `No recording ${recordingId} in this meeting`
        : rendering
          ? "This meeting's composite recording is still rendering; try again once recording.ready has fired"
          : 'No ready recording in this meeting';
    throw new NodeOperationError(this.getNode(), message, { itemIndex });
  }
  if (typeof recording.download_url !== 'string') {
    throw new NodeOperationError(
      this.getNode(),
      `Recording ${String(recording.id)} is ${String(recording.status)}, not ready to download`,
      {
        itemIndex,
      },
    );
  }
  const response = (await this.helpers.httpRequest({
    method: 'GET',
    url: recording.download_url,
    encoding: 'arraybuffer',
    returnFullResponse: true,
  })) as { body: ArrayBuffer | Buffer; headers: IDataObject };
  const contentType = String(response.headers['content-type'] ?? 'application/octet-stream')
    .split(';')[0]!
    .trim();
  const fileName = fileNameOf(recording, contentType, response.headers['content-disposition']);
  const binaryPropertyName = this.getNodeParameter('binaryPropertyName', itemIndex) as string;
  const binary = await this.helpers.prepareBinaryData(Buffer.from(response.body as ArrayBuffer), fileName, contentType);
  return { builtItems: [{ json: recording, binary: { [binaryPropertyName]: binary } }] };
};
