import { updateDisplayOptions } from 'n8n-workflow';
import { svcApiRequest } from '../../../shared/transport';
import { meetingIdField, meetingSegment, type SvcOperation } from '../common';

/** Fields of meeting: end. */
export const description = updateDisplayOptions({ show: { resource: ['meeting'], operation: ['end'] } }, [meetingIdField]);

/** Ends a live meeting for everyone in it (`PATCH {"status": "ended"}`) and returns the ended meeting. */
export const execute: SvcOperation = async function (this, itemIndex) {
  return await svcApiRequest.call(this, 'PATCH', `/meetings/${meetingSegment.call(this, itemIndex)}`, { body: { status: 'ended' } });
};
