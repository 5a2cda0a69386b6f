import { parentPort, workerData } from 'node:worker_threads';
import { GraphqlPlanner, type GraphqlLimits, type GraphqlRequest, type PlanOutcome } from './graphql.planner';
import type { Reflection } from '../project/project.reflection';
import type { ApiRole } from '../project/project.setup';

/** A step the engine asks of its thread. */
export type ThreadCall =
  | { id: number; op: 'prepare'; request: GraphqlRequest; queriesOnly: boolean }
  | { id: number; op: 'plan'; role: ApiRole; version: number; reflection?: Reflection }
  | { id: number; op: 'finish'; values: (string | null)[] }
  | { id: number; op: 'discard' };

/** The thread's reply to one call: its outcome, or the message of what it threw. */
export type ThreadReply = { id: number; outcome: PlanOutcome } | { id: number; error: string };

// The entry of the GraphQL thread the engine starts: one planner, its calls answered in order.
if (parentPort) {
  const port = parentPort;
  const planner = new GraphqlPlanner((workerData as { limits: GraphqlLimits }).limits);
  port.on('message', (call: ThreadCall) => {
    void (async () => {
      try {
        let outcome: PlanOutcome;
        if (call.op === 'prepare') outcome = planner.prepare(call.id, call.request, call.queriesOnly);
        else if (call.op === 'plan') outcome = planner.plan(call.id, call.role, call.version, call.reflection);
        else if (call.op === 'finish') outcome = await planner.finish(call.id, call.values);
        else return planner.discard(call.id);
        port.postMessage({ id: call.id, outcome } satisfies ThreadReply);
      } catch (err) {
        port.postMessage({ id: call.id, error: err instanceof Error ? err.message : String(err) } satisfies ThreadReply);
      }
    })();
  });
}
