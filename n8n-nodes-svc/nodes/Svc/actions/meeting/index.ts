import type { INodeProperties } from 'n8n-workflow';
import * as cancel from './cancel.operation';
import * as create from './create.operation';
import * as del from './delete.operation';
import * as end from './end.operation';
import * as get from './get.operation';
import * as getMany from './getMany.operation';
import * as reopen from './reopen.operation';
import * as update from './update.operation';

export { cancel, create, del as delete, end, get, getMany, reopen, update };

/** The meeting resource: its operation picker and the fields of each operation. */
export const description: INodeProperties[] = [
  {
    displayName: 'Operation',
    name: 'operation',
    type: 'options',
    noDataExpression: true,
    displayOptions: { show: { resource: ['meeting'] } },
    options: [
      { name: 'Cancel', value: 'cancel', description: 'Cancel a scheduled meeting', action: 'Cancel a meeting' },
      { name: 'Create', value: 'create', description: 'Create a meeting or a webinar', action: 'Create a meeting' },
      {
        name: 'Delete',
        value: 'delete',
        description: 'Cancel a scheduled meeting (the same as Cancel, kept for existing workflows)',
        action: 'Delete a meeting',
      },
      { name: 'End', value: 'end', description: 'End a live meeting for everyone in it', action: 'End a meeting' },
      { name: 'Get', value: 'get', description: 'Get a meeting by ID or code', action: 'Get a meeting' },
      { name: 'Get Many', value: 'getMany', description: 'List meetings, newest first', action: 'Get many meetings' },
      {
        name: 'Reopen',
        value: 'reopen',
        description: 'Put an ended or cancelled meeting back to scheduled, with the same join link',
        action: 'Reopen a meeting',
      },
      { name: 'Update', value: 'update', description: 'Change a meeting or end a live one', action: 'Update a meeting' },
    ],
    default: 'create',
  },
  ...cancel.description,
  ...create.description,
  ...del.description,
  ...end.description,
  ...get.description,
  ...getMany.description,
  ...reopen.description,
  ...update.description,
];
