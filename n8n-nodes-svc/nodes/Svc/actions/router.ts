import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import type { BuiltItems, SvcOperation } from './common';
import * as meeting from './meeting';
import * as participant from './participant';
import * as recording from './recording';
import * as registration from './registration';
import * as summary from './summary';
import * as transcript from './transcript';

const operations: Record<string, SvcOperation> = {
  'meeting:cancel': meeting.cancel.execute,
  'meeting:create': meeting.create.execute,
  'meeting:delete': meeting.delete.execute,
  'meeting:end': meeting.end.execute,
  'meeting:get': meeting.get.execute,
  'meeting:getMany': meeting.getMany.execute,
  'meeting:reopen': meeting.reopen.execute,
  'meeting:update': meeting.update.execute,
  'participant:getMany': participant.getMany.execute,
  'registration:create': registration.create.execute,
  'recording:download': recording.download.execute,
  'recording:getMany': recording.getMany.execute,
  'transcript:get': transcript.get.execute,
  'summary:get': summary.get.execute,
};

function isBuiltItems(result: IDataObject | IDataObject[] | BuiltItems): result is BuiltItems {
  return !Array.isArray(result) && Array.isArray((result as Partial<BuiltItems>).builtItems);
}

/** The error of one item, carrying that item's index (as n8n shows it) whatever threw it. */
function itemError(this: IExecuteFunctions, error: unknown, itemIndex: number): Error {
  if (error instanceof Error && 'context' in error && typeof error.context === 'object' && error.context !== null) {
    (error.context as IDataObject).itemIndex ??= itemIndex;
    return error;
  }
  return new NodeOperationError(this.getNode(), error instanceof Error ? error : String(error), { itemIndex });
}

/** Runs the chosen operation once per input item; owns the item loop, item pairing, each error's item index and "continue on fail". */
export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
  const items = this.getInputData();
  const resource = this.getNodeParameter('resource', 0) as string;
  const operation = this.getNodeParameter('operation', 0) as string;
  const run = operations[`${resource}:${operation}`];
  if (run === undefined) throw new NodeOperationError(this.getNode(), `The operation "${operation}" of "${resource}" is not supported`);

  const output: INodeExecutionData[] = [];
  for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
    let result: IDataObject | IDataObject[] | BuiltItems;
    try {
      result = await run.call(this, itemIndex);
    } catch (error) {
      const failure = itemError.call(this, error, itemIndex);
      if (!this.continueOnFail()) throw failure;
      result = { error: failure.message };
    }
    const built = isBuiltItems(result) ? result.builtItems : this.helpers.returnJsonArray(result);
    output.push(...this.helpers.constructExecutionMetaData(built, { itemData: { item: itemIndex } }));
  }
  return [output];
}
