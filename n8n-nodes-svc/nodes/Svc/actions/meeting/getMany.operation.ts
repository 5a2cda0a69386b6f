import type { IDataObject, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { listItems, returnAllOrLimit, type SvcOperation } from '../common';

const properties: INodeProperties[] = [
  ...returnAllOrLimit,
  {
    displayName: 'Filters',
    name: 'filters',
    type: 'collection',
    placeholder: 'Add Filter',
    default: {},
    options: [
      {
        displayName: 'Status',
        name: 'status',
        type: 'options',
        default: 'scheduled',
        options: [
          { name: 'Cancelled', value: 'cancelled' },
          { name: 'Ended', value: 'ended' },
          { name: 'Live', value: 'live' },
          { name: 'Scheduled', value: 'scheduled' },
        ],
        description: 'Only meetings in this status',
      },
    ],
  },
];

/** Fields of meeting: get many. */
export const description = updateDisplayOptions({ show: { resource: ['meeting'], operation: ['getMany'] } }, properties);

/** Lists meetings, newest first, following svc's cursor pagination. */
export const execute: SvcOperation = async function (this, itemIndex) {
  const filters = this.getNodeParameter('filters', itemIndex) as IDataObject;
  return await listItems.call(this, itemIndex, '/meetings', typeof filters.status === 'string' ? { status: filters.status } : {});
};
