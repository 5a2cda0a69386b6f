import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { ProjectDatabase } from '../project/project.database';
import type { JwtClaims } from '../project/project.keys';
import { AppError } from '../shared/errors';
import { DEFAULT_LIMITS, failureBody, publicMessage, type GraphqlLimits, type GraphqlRequest, type PlanOutcome } from './graphql.planner';
import type { ThreadCall, ThreadReply } from './graphql.thread';

export { DEFAULT_LIMITS, publicMessage, type GraphqlLimits, type GraphqlRequest, type GraphqlResponse } from './graphql.planner';

/** A GraphQL thread's heap: a request that needs more ends the thread (answered "Internal error"), never the service. */
const THREAD_HEAP_MB = 512;

/** The planner's thread and the calls waiting for its replies. */
class PlannerThread {
  private readonly worker: Worker;
  private readonly waiting = new Map<number, { resolve: (o: PlanOutcome) => void; reject: (e: Error) => void }>();
  stopped = false;

  constructor(limits: GraphqlLimits, onStop: () => void) {
    // Built, the service runs graphql.thread.js; under jest and tsx the sources run through tsx's loader.
    const entry = path.join(__dirname, `graphql.thread${path.extname(__filename)}`);
    this.worker = new Worker(entry, {
      workerData: { limits },
      execArgv: entry.endsWith('.ts') ? ['--require', require.resolve('tsx/cjs')] : [],
      resourceLimits: { maxOldGenerationSizeMb: THREAD_HEAP_MB },
    });
    this.worker.unref();
    this.worker.on('message', (reply: ThreadReply) => {
      const waiter = this.waiting.get(reply.id);
      this.waiting.delete(reply.id);
      if ('error' in reply) waiter?.reject(new Error(reply.error));
      else waiter?.resolve(reply.outcome);
    });
    const stop = (err: Error) => {
      if (this.stopped) return;
      this.stopped = true;
      for (const waiter of this.waiting.values()) waiter.reject(err);
      this.waiting.clear();
      onStop();
    };
    this.worker.on('error', stop);
    this.worker.on('exit', (code) => stop(new Error(`the GraphQL thread stopped (exit code ${code})`)));
  }

  call(message: Exclude<ThreadCall, { op: 'discard' }>): Promise<PlanOutcome> {
    return new Promise((resolve, reject) => {
      if (this.stopped) return reject(new Error('the GraphQL thread has stopped'));
      this.waiting.set(message.id, { resolve, reject });
      this.worker.postMessage(message);
    });
  }

  discard(id: number): void {
    if (!this.stopped) this.worker.postMessage({ id, op: 'discard' } satisfies ThreadCall);
  }

  async terminate(): Promise<void> {
    await this.worker.terminate();
  }
}

/**
 * Serves GraphQL over a project database: a schema per role and schema version, one SQL statement per root field.
 * Parsing, validation, compilation and shaping run in a thread of their own (started on first use, restarted if
 * it dies), so the HTTP event loop only passes text along; the SQL runs here, in the request's transaction.
 */
export class GraphqlEngine {
  private thread: PlannerThread | undefined;
  private nextId = 1;

  constructor(
    private readonly project: ProjectDatabase,
    private readonly limits: GraphqlLimits = DEFAULT_LIMITS,
    private readonly onError: (err: unknown) => void = () => undefined,
  ) {}

  private plannerThread(): PlannerThread {
    if (!this.thread || this.thread.stopped) {
      const thread: PlannerThread = new PlannerThread(this.limits, () => {
        if (this.thread === thread) this.thread = undefined;
      });
      this.thread = thread;
    }
    return this.thread;
  }

  /**
   * Runs one request as the claims' role in one transaction (rolled back on any error) and returns the answer's
   * JSON text, shaped as pg_graphql answers. With `queriesOnly` (a GET), a document whose selected operation is a
   * mutation is refused as `method_not_allowed` before anything runs.
   */
  async respond(request: GraphqlRequest, claims: JwtClaims, { queriesOnly = false } = {}): Promise<string> {
    const id = this.nextId++;
    const thread = this.plannerThread();
    try {
      const { query, variables, operationName } = request;
      const prepared = await thread.call({ id, op: 'prepare', request: { query, variables, operationName }, queriesOnly });
      if (prepared.kind === 'refused') throw new AppError(prepared.code, prepared.detail);
      if (prepared.kind !== 'continue') return this.answerOf(prepared);
      const ran = await this.project.asRole(claims, async ({ client, reflection }) => {
        const { role } = claims;
        let planned = await thread.call({ id, op: 'plan', role, version: reflection.version });
        if (planned.kind === 'need-reflection')
          planned = await thread.call({ id, op: 'plan', role, version: reflection.version, reflection });
        if (planned.kind !== 'statements') return planned;
        const values: (string | null)[] = [];
        for (const statement of planned.statements) {
          const { rows } = await client.query(statement.sql, statement.params);
          const first = rows[0]!;
          if (statement.atMost !== null && Number(first.n) > statement.atMost) {
            throw new AppError('conflict', `${statement.verb} impacts too many records`);
          }
          for (const column of statement.columns) values.push(first[column] as string | null);
        }
        return { kind: 'values' as const, values };
      });
      if (ran.kind !== 'values') return this.answerOf(ran);
      return this.answerOf(await thread.call({ id, op: 'finish', values: ran.values }));
    } catch (err) {
      if (err instanceof AppError && err.code === 'method_not_allowed') throw err;
      const message = publicMessage(err);
      if (message === 'Internal error') this.onError(err);
      return failureBody(message);
    } finally {
      thread.discard(id);
    }
  }

  private answerOf(outcome: PlanOutcome): string {
    if (outcome.kind !== 'answer') throw new Error(`the GraphQL thread answered "${outcome.kind}" out of turn`);
    if (outcome.internalError) this.onError(new Error(outcome.internalError));
    return outcome.body;
  }

  /** Stops the thread (a later request starts a new one). */
  async close(): Promise<void> {
    const thread = this.thread;
    this.thread = undefined;
    await thread?.terminate();
  }
}
