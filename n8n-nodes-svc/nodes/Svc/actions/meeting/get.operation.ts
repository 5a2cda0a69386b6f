import { updateDisplayOptions } from 'n8n-workflow';
import { segment, svcApiRequest } from '../../../shared/transport';
import { meetingIdField, type SvcOperation } from '../common';

/** Fields of meeting: get. */
export const description = updateDisplayOptions({ show: { resource: ['meeting'], operation: ['get'] } }, [meetingIdField]);

/** Reads one meeting. */
export const execute: SvcOperation = async function (this, itemIndex) {
  const meetingId = this.getNodeParameter('meetingId', itemIndex) as string;
  return await svcApiRequest.call(this, 'GET', `/meetings/${segment(meetingId)}`);
};
