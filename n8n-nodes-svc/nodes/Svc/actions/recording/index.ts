import type { INodeProperties } from 'n8n-workflow';
import * as download from './download.operation';
import * as getMany from './getMany.operation';

export { download, getMany };

/** The recording resource: its operation picker and the fields of each operation. */
export const description: INodeProperties[] = [
  {
    displayName: 'Operation',
    name: 'operation',
    type: 'options',
    noDataExpression: true,
    displayOptions: { show: { resource: ['recording'] } },
    options: [
      { name: 'Download', value: 'download', description: 'Download a recording as a file', action: 'Download a recording' },
      { name: 'Get Many', value: 'getMany', description: 'List the recordings of a meeting', action: 'Get many recordings' },
    ],
    default: 'getMany',
  },
  ...download.description,
  ...getMany.description,
];
