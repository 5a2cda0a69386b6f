import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { meetingLocator } from '../../shared/locators';
import { segment, svcApiRequestAllItems } from '../../shared/transport';

/** Output items an operation built itself (with binary data), instead of JSON to be wrapped. */
export interface BuiltItems {
  builtItems: INodeExecutionData[];
}

/** One operation: runs once per input item and returns that item's output. */
export type SvcOperation = (this: IExecuteFunctions, itemIndex: number) => Promise<IDataObject | IDataObject[] | BuiltItems>;

/** The meeting locator every operation on one meeting uses (list, ID, code or join URL). */
export const meetingIdField: INodeProperties = meetingLocator();

/** The meeting an item names, as a path segment (an ID or a join code). */
export function meetingSegment(this: IExecuteFunctions, itemIndex: number): string {
  return segment(String(this.getNodeParameter('meetingId', itemIndex, '', { extractValue: true })));
}

/** "Return All" and "Limit", the fields of every list operation. */
export const returnAllOrLimit: INodeProperties[] = [
  {
    displayName: 'Return All',
    name: 'returnAll',
    type: 'boolean',
    default: false,
    description: 'Whether to return all results or only up to a given limit',
  },
  {
    displayName: 'Limit',
    name: 'limit',
    type: 'number',
    typeOptions: { minValue: 1 },
    default: 50,
    description: 'Max number of results to return',
    displayOptions: { show: { returnAll: [false] } },
  },
];

/** Every item of a paginated list when "Return All" is on, otherwise the first "Limit" of them. */
export async function listItems(this: IExecuteFunctions, itemIndex: number, path: string, qs: IDataObject = {}): Promise<IDataObject[]> {
  const returnAll = this.getNodeParameter('returnAll', itemIndex) as boolean;
  const max = returnAll ? undefined : (this.getNodeParameter('limit', itemIndex) as number);
  return await svcApiRequestAllItems.call(this, path, qs, max);
}
