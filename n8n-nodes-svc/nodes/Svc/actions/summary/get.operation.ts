import { updateDisplayOptions } from 'n8n-workflow';
import { svcApiRequest } from '../../../shared/transport';
import { meetingIdField, meetingSegment, type SvcOperation } from '../common';

/** Fields of summary: get. */
export const description = updateDisplayOptions({ show: { resource: ['summary'], operation: ['get'] } }, [meetingIdField]);

/** Reads a meeting's AI summary: TL;DR, decisions and action items, each citing transcript segments. */
export const execute: SvcOperation = async function (this, itemIndex) {
  return await svcApiRequest.call(this, 'GET', `/meetings/${meetingSegment.call(this, itemIndex)}/summary`);
};
