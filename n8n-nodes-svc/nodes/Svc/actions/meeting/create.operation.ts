import type { IDataObject, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { svcApiRequest } from '../../../shared/transport';
import type { SvcOperation } from '../common';
import { meetingBody, meetingFields } from './fields';

const properties: INodeProperties[] = [
  {
    displayName: 'Title',
    name: 'title',
    type: 'string',
    required: true,
    default: '',
    description: 'Title of the meeting, 1 to 200 characters',
  },
  {
    displayName: 'Additional Fields',
    name: 'additionalFields',
    type: 'collection',
    placeholder: 'Add Field',
    default: {},
    options: [
      ...meetingFields,
      {
        displayName: 'Webinar Slug',
        name: 'webinarSlug',
        type: 'string',
        default: '',
        placeholder: 'product-launch',
        description: 'Makes the meeting a webinar that people register for under this slug (3 to 64 of a-z, 0-9 and -)',
      },
    ],
  },
];

/** Fields of meeting: create. */
export const description = updateDisplayOptions({ show: { resource: ['meeting'], operation: ['create'] } }, properties);

/** Creates a meeting, or a webinar when a slug is given. */
export const execute: SvcOperation = async function (this, itemIndex) {
  const title = this.getNodeParameter('title', itemIndex) as string;
  const additionalFields = this.getNodeParameter('additionalFields', itemIndex) as IDataObject;
  const body = meetingBody({ ...additionalFields, title });
  if (typeof additionalFields.webinarSlug === 'string' && additionalFields.webinarSlug !== '') {
    body.kind = 'webinar';
    body.slug = additionalFields.webinarSlug;
  }
  return await svcApiRequest.call(this, 'POST', '/meetings', { body });
};
