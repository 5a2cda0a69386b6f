import { updateDisplayOptions } from 'n8n-workflow';
import { segment } from '../../../shared/transport';
import { listItems, meetingIdField, returnAllOrLimit, type SvcOperation } from '../common';

/** Fields of recording: get many. */
export const description = updateDisplayOptions({ show: { resource: ['recording'], operation: ['getMany'] } }, [
  meetingIdField,
  ...returnAllOrLimit,
]);

/** Lists a meeting's recordings, each with its download URL. */
export const execute: SvcOperation = async function (this, itemIndex) {
  const meetingId = this.getNodeParameter('meetingId', itemIndex) as string;
  return await listItems.call(this, itemIndex, `/meetings/${segment(meetingId)}/recordings`);
};
