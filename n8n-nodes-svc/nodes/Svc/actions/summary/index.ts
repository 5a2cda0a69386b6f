import type { INodeProperties } from 'n8n-workflow';
import * as get from './get.operation';

export { get };

/** The summary resource: its operation picker and the fields of each operation. */
export const description: INodeProperties[] = [
  {
    displayName: 'Operation',
    name: 'operation',
    type: 'options',
    noDataExpression: true,
    displayOptions: { show: { resource: ['summary'] } },
    options: [{ name: 'Get', value: 'get', description: 'Get the AI summary of a meeting', action: 'Get a summary' }],
    default: 'get',
  },
  ...get.description,
];
