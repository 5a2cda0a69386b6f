import { createJobWorker } from '../services';
import { startTestCore } from '../testing/core';
import { JOB_RETRY_DELAYS_MS, type JobHandler } from './job.worker';

describe('JobWorker', () => {
  const core = startTestCore();
  const { services, clock, logger } = core;
  afterAll(() => core.dispose());

  const seen: unknown[] = [];
  let failuresLeft = 0;
  const echo: JobHandler<{ n: number }> = {
    kind: 'test.echo',
    async run(payload) {
      if (failuresLeft > 0) {
        failuresLeft -= 1;
        throw new Error('flaky');
      }
      seen.push(payload);
    },
  };
  const worker = createJobWorker(services, [echo as JobHandler], logger);
  const job = (id: string) => services.jobsRepo.findById(id)!;

  it('runs a queued job with its handler once and marks it succeeded', async () => {
    const id = services.jobs.enqueue('test.echo', { n: 1 });
    expect(await worker.runOnce()).toBe(1);
    expect(seen).toEqual([{ n: 1 }]);
    expect(job(id)).toMatchObject({ status: 'succeeded', attempt_count: 1, last_error: null });
    expect(await worker.runOnce()).toBe(0);
  });

  it('retries a failing job on the back-off schedule, and gives up after five attempts', async () => {
    failuresLeft = 5;
    const id = services.jobs.enqueue('test.echo', { n: 2 });
    await worker.runOnce();
    for (const delay of JOB_RETRY_DELAYS_MS) {
      expect(job(id)).toMatchObject({ status: 'pending', last_error: 'flaky', next_run_at: clock.now() + delay });
      clock.advance(delay - 1);
      expect(await worker.runOnce()).toBe(0);
      clock.advance(1);
      expect(await worker.runOnce()).toBe(1);
    }
    expect(job(id)).toMatchObject({ status: 'failed', attempt_count: 5, last_error: 'flaky', next_run_at: null });
    expect(seen).not.toContainEqual({ n: 2 });
  });

  it('fails a job of an unknown kind at once, naming the kind', async () => {
    const id = services.jobs.enqueue('test.nobody', {});
    await worker.runOnce();
    expect(job(id)).toMatchObject({ status: 'failed', last_error: 'no handler for jobs of kind "test.nobody"' });
  });

  it('queues nothing when the transaction that queued the job rolls back', () => {
    let id = '';
    expect(() =>
      services.transaction(() => {
        id = services.jobs.enqueue('test.echo', { n: 3 });
        throw new Error('domain change failed');
      }),
    ).toThrow('domain change failed');
    expect(services.jobsRepo.findById(id)).toBeUndefined();
  });

  it('runs again, after a restart, a job a crash left running', async () => {
    const id = services.jobs.enqueue('test.echo', { n: 4 });
    services.jobsRepo.claimDue(clock.now(), 1, clock.now() + 60 * 60_000);
    expect(await worker.runOnce()).toBe(0);
    worker.start();
    await worker.stop();
    expect(job(id).status).not.toBe('running');
    await worker.runOnce();
    expect(seen).toContainEqual({ n: 4 });
  });

  it('interrupts a running job when it stops, without counting an attempt, and runs it again at the next start', async () => {
    const started: string[] = [];
    const slow: JobHandler = {
      kind: 'test.slow',
      run: (_payload, { id, signal }) =>
        new Promise<void>((resolve, reject) => {
          started.push(id);
          if (started.length > 1) return resolve();
          signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
        }),
    };
    const stoppable = createJobWorker(services, [slow], logger);
    const id = services.jobs.enqueue('test.slow', {});
    stoppable.start();
    for (let i = 0; i < 1_000 && started.length === 0; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(started).toEqual([id]);
    await stoppable.stop();
    expect(job(id)).toMatchObject({ status: 'running', attempt_count: 0, last_error: null });

    stoppable.start();
    for (let i = 0; i < 1_000 && job(id).status !== 'succeeded'; i++) await new Promise((resolve) => setImmediate(resolve));
    await stoppable.stop();
    expect(started).toEqual([id, id]);
    expect(job(id)).toMatchObject({ status: 'succeeded', attempt_count: 1, last_error: null });
  });
});
