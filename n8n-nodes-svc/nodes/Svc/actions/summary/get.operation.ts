import { updateDisplayOptions } from 'n8n-workflow';
import { segment, svcApiRequest } from '../../../shared/transport';
import { meetingIdField, type SvcOperation } from '../common';

/** Fields of summary: get. */
export const description = updateDisplayOptions({ show: { resource: ['summary'], operation: ['get'] } }, [meetingIdField]);

/** Reads a meeting's AI summary: TL;DR, decisions and action items, each citing transcript segments. */
export const execute: SvcOperation = async function (this, itemIndex) {
  const meetingId = this.getNodeParameter('meetingId', itemIndex) as string;
  return await svcApiRequest.call(this, 'GET', `/meetings/${segment(meetingId)}/summary`);
};
