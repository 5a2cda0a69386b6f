import type { INodeProperties } from 'n8n-workflow';
import * as get from './get.operation';

export { get };

/** The transcript resource: its operation picker and the fields of each operation. */
export const description: INodeProperties[] = [
  {
    displayName: 'Operation',
    name: 'operation',
    type: 'options',
    noDataExpression: true,
    displayOptions: { show: { resource: ['transcript'] } },
    options: [{ name: 'Get', value: 'get', description: 'Get the transcript of a meeting', action: 'Get a transcript' }],
    default: 'get',
  },
  ...get.description,
];
