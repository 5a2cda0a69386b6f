import { updateDisplayOptions } from 'n8n-workflow';
import { listItems, meetingIdField, meetingSegment, returnAllOrLimit, type SvcOperation } from '../common';

/** Fields of participant: get many. */
export const description = updateDisplayOptions({ show: { resource: ['participant'], operation: ['getMany'] } }, [
  meetingIdField,
  ...returnAllOrLimit,
]);

/** Lists everyone who joined a meeting's room (name, role, joined and left times), following svc's cursor pagination. */
export const execute: SvcOperation = async function (this, itemIndex) {
  return await listItems.call(this, itemIndex, `/meetings/${meetingSegment.call(this, itemIndex)}/participants`);
};
