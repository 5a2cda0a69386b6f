import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import type { SvcOperation } from './common';
import * as meeting from './meeting';
import * as recording from './recording';
import * as registration from './registration';
import * as summary from './summary';
import * as transcript from './transcript';

const operations: Record<string, SvcOperation> = {
  'meeting:create': meeting.create.execute,
  'meeting:delete': meeting.delete.execute,
  'meeting:get': meeting.get.execute,
  'meeting:getMany': meeting.getMany.execute,
  'meeting:update': meeting.update.execute,
  'registration:create': registration.create.execute,
  'recording:getMany': recording.getMany.execute,
  'transcript:get': transcript.get.execute,
  'summary:get': summary.get.execute,
};

/** Runs the chosen operation once per input item; owns the item loop, item pairing and "continue on fail". */
export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
  const items = this.getInputData();
  const resource = this.getNodeParameter('resource', 0) as string;
  const operation = this.getNodeParameter('operation', 0) as string;
  const run = operations[`${resource}:${operation}`];
  if (run === undefined) throw new NodeOperationError(this.getNode(), `The operation "${operation}" of "${resource}" is not supported`);

  const output: INodeExecutionData[] = [];
  for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
    const result = this.continueOnFail()
      ? await run.call(this, itemIndex).catch((error: unknown) => ({ error: error instanceof Error ? error.message : String(error) }))
      : await run.call(this, itemIndex);
    output.push(...this.helpers.constructExecutionMetaData(this.helpers.returnJsonArray(result), { itemData: { item: itemIndex } }));
  }
  return [output];
}
