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
    description: 'The recording to download; empty downloads the newest ready recording of the meeting',
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
  const extension = /^(?:video|audio)\/([a-z0-9]+)/.exec(contentType)?.[1] ?? 'bin';
  return `${String(recording.id)}.${extension}`;
}

/** Downloads a ready recording through its signed `download_url` and outputs the recording as JSON with the file as binary data. */
export const execute: SvcOperation = async function (this, itemIndex) {
  const recordings = await svcApiRequestAllItems.call(this, `/meetings/${meetingSegment.call(this, itemIndex)}/recordings`);
  const recordingId = (this.getNodeParameter('recordingId', itemIndex, '') as string).trim();
  const recording = recordingId === '' ? recordings.find((r) => r.status === 'ready') : recordings.find((r) => r.id === recordingId);
  if (recording === undefined) {
    const what = recordingId === '' ? 'No ready recording' : `No recording ${recordingId}`;
    throw new NodeOperationError(this.getNode(), `${what} in this meeting`, { itemIndex });
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
