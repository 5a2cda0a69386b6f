import type { INodeProperties } from 'n8n-workflow';
import * as getMany from './getMany.operation';

export { getMany };

/** The participant resource: its operation picker and the fields of each operation. */
export const description: INodeProperties[] = [
  {
    displayName: 'Operation',
    name: 'operation',
    type: 'options',
    noDataExpression: true,
    displayOptions: { show: { resource: ['participant'] } },
    options: [{ name: 'Get Many', value: 'getMany', description: 'List the participants of a meeting', action: 'Get many participants' }],
    default: 'getMany',
  },
  ...getMany.description,
];
