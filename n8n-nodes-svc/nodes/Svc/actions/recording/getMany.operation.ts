import { updateDisplayOptions } from 'n8n-workflow';
import { listItems, meetingIdField, meetingSegment, returnAllOrLimit, type SvcOperation } from '../common';

/** Fields of recording: get many. */
export const description = updateDisplayOptions({ show: { resource: ['recording'], operation: ['getMany'] } }, [
  meetingIdField,
  ...returnAllOrLimit,
]);

/** Lists a meeting's recordings, each with its download URL. */
export const execute: SvcOperation = async function (this, itemIndex) {
  return await listItems.call(this, itemIndex, `/meetings/${meetingSegment.call(this, itemIndex)}/recordings`);
};
