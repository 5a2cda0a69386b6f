import { updateDisplayOptions } from 'n8n-workflow';
import { svcApiRequest } from '../../../shared/transport';
import { meetingIdField, meetingSegment, type SvcOperation } from '../common';

/** Fields of meeting: get. */
export const description = updateDisplayOptions({ show: { resource: ['meeting'], operation: ['get'] } }, [meetingIdField]);

/** Reads one meeting. */
export const execute: SvcOperation = async function (this, itemIndex) {
  return await svcApiRequest.call(this, 'GET', `/meetings/${meetingSegment.call(this, itemIndex)}`);
};
