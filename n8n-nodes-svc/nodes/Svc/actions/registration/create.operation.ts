import type { INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { webinarLocator, webinarSlugOf, type LocatorValue } from '../../../shared/locators';
import { segment, svcApiRequest } from '../../../shared/transport';
import type { SvcOperation } from '../common';

const properties: INodeProperties[] = [
  webinarLocator({ description: 'The webinar to register for: pick it from the list, or give its slug or join URL' }),
  {
    displayName: 'Email',
    name: 'email',
    type: 'string',
    placeholder: 'name@email.com',
    required: true,
    default: '',
    description: 'Email address of the participant; registering the same address again returns the existing registration',
  },
  {
    displayName: 'Name',
    name: 'name',
    type: 'string',
    required: true,
    default: '',
    description: 'Display name of the participant',
  },
];

/** Fields of participant registration: create. */
export const description = updateDisplayOptions({ show: { resource: ['registration'], operation: ['create'] } }, properties);

/** Registers a participant for a webinar and returns the registration with its personal join URL. */
export const execute: SvcOperation = async function (this, itemIndex) {
  const slug = await webinarSlugOf.call(this, this.getNodeParameter('webinarSlug', itemIndex) as LocatorValue);
  const email = this.getNodeParameter('email', itemIndex) as string;
  const name = this.getNodeParameter('name', itemIndex) as string;
  return await svcApiRequest.call(this, 'POST', `/webinars/${segment(slug)}/registrations`, { body: { email, name } });
};
