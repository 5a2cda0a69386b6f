import { updateDisplayOptions } from 'n8n-workflow';
import { svcApiRequest } from '../../../shared/transport';
import { meetingIdField, meetingSegment, type SvcOperation } from '../common';

/** Fields of meeting: reopen. */
export const description = updateDisplayOptions({ show: { resource: ['meeting'], operation: ['reopen'] } }, [meetingIdField]);

/** Puts an ended or cancelled meeting back to scheduled (`POST /meetings/{id}/reopen`); svc returns a scheduled or live one unchanged. */
export const execute: SvcOperation = async function (this, itemIndex) {
  return await svcApiRequest.call(this, 'POST', `/meetings/${meetingSegment.call(this, itemIndex)}/reopen`);
};
