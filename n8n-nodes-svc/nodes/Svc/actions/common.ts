import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { svcApiRequestAllItems } from '../../shared/transport';

/** One operation: runs once per input item and returns that item's output. */
export type SvcOperation = (this: IExecuteFunctions, itemIndex: number) => Promise<IDataObject | IDataObject[]>;

/** The field naming a meeting by its ID or join code. */
export const meetingIdField: INodeProperties = {
  displayName: 'Meeting ID or Code',
  name: 'meetingId',
  type: 'string',
  required: true,
  default: '',
  placeholder: 'abc-defg-hij',
  description: 'The ID (mtg_...) or the join code of the meeting',
};

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
