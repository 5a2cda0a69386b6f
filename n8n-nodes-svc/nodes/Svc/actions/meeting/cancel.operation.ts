import { updateDisplayOptions } from 'n8n-workflow';
import { svcApiRequest } from '../../../shared/transport';
import { meetingIdField, meetingSegment, type SvcOperation } from '../common';

/** Fields of meeting: cancel. */
export const description = updateDisplayOptions({ show: { resource: ['meeting'], operation: ['cancel'] } }, [meetingIdField]);

/** Cancels a scheduled meeting (`DELETE /meetings/{id}`); svc keeps the record, now with status cancelled, and returns it. */
export const execute: SvcOperation = async function (this, itemIndex) {
  return await svcApiRequest.call(this, 'DELETE', `/meetings/${meetingSegment.call(this, itemIndex)}`);
};
