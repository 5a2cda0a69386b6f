import { updateDisplayOptions } from 'n8n-workflow';
import { svcApiRequest } from '../../../shared/transport';
import { meetingIdField, meetingSegment, type SvcOperation } from '../common';

/** Fields of transcript: get. */
export const description = updateDisplayOptions({ show: { resource: ['transcript'], operation: ['get'] } }, [meetingIdField]);

/** Reads a meeting's transcript: language, status, full text and timed segments. */
export const execute: SvcOperation = async function (this, itemIndex) {
  return await svcApiRequest.call(this, 'GET', `/meetings/${meetingSegment.call(this, itemIndex)}/transcript`);
};
