import type { INodeProperties } from 'n8n-workflow';
import * as create from './create.operation';

export { create };

/** The participant registration resource: its operation picker and the fields of each operation. */
export const description: INodeProperties[] = [
  {
    displayName: 'Operation',
    name: 'operation',
    type: 'options',
    noDataExpression: true,
    displayOptions: { show: { resource: ['registration'] } },
    options: [
      { name: 'Create', value: 'create', description: 'Register a participant for a webinar', action: 'Create a participant registration' },
    ],
    default: 'create',
  },
  ...create.description,
];
