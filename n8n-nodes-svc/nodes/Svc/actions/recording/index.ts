import type { INodeProperties } from 'n8n-workflow';
import * as getMany from './getMany.operation';

export { getMany };

/** The recording resource: its operation picker and the fields of each operation. */
export const description: INodeProperties[] = [
  {
    displayName: 'Operation',
    name: 'operation',
    type: 'options',
    noDataExpression: true,
    displayOptions: { show: { resource: ['recording'] } },
    options: [{ name: 'Get Many', value: 'getMany', description: 'List the recordings of a meeting', action: 'Get many recordings' }],
    default: 'getMany',
  },
  ...getMany.description,
];
