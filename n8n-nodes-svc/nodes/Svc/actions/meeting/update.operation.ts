import type { IDataObject, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';
import { svcApiRequest } from '../../../shared/transport';
import { meetingIdField, meetingSegment, type SvcOperation } from '../common';
import { meetingBody, meetingFields } from './fields';

const properties: INodeProperties[] = [
  meetingIdField,
  {
    displayName: 'Update Fields',
    name: 'updateFields',
    type: 'collection',
    placeholder: 'Add Field',
    default: {},
    options: [
      {
        displayName: 'End Meeting',
        name: 'endMeeting',
        type: 'boolean',
        default: false,
        description: 'Whether to end the live meeting for everyone in it',
      },
      ...meetingFields,
      {
        displayName: 'Title',
        name: 'title',
        type: 'string',
        default: '',
        description: 'New title, 1 to 200 characters',
      },
    ],
  },
];

/** Fields of meeting: update. */
export const description = updateDisplayOptions({ show: { resource: ['meeting'], operation: ['update'] } }, properties);

/** Changes a meeting's fields (settings are merged), or ends a live meeting. */
export const execute: SvcOperation = async function (this, itemIndex) {
  const updateFields = this.getNodeParameter('updateFields', itemIndex) as IDataObject;
  const body = meetingBody(updateFields);
  if (updateFields.endMeeting === true) body.status = 'ended';
  if (Object.keys(body).length === 0) {
    throw new NodeOperationError(this.getNode(), 'Set at least one field to update', { itemIndex });
  }
  return await svcApiRequest.call(this, 'PATCH', `/meetings/${meetingSegment.call(this, itemIndex)}`, { body });
};
