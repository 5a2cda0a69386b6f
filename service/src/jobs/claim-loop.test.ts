import { ManualClock } from '../shared/clock';
import { createLogger } from '../shared/logger';
import { ClaimLoop, type ClaimSource } from './claim-loop';

describe('ClaimLoop', () => {
  it('survives a failing claim: logs, backs off and carries on claiming', async () => {
    const errors: string[] = [];
    const logger = { ...createLogger('silent'), error: (message: string) => errors.push(message) };
    let claims = 0;
    const ran: number[] = [];
    const source: ClaimSource<number> = {
      claim: () => {
        claims += 1;
        if (claims === 1) throw new Error('SQLITE_BUSY');
        return claims === 2 ? [42] : [];
      },
      run: async (n) => {
        ran.push(n);
      },
      nextDueAt: () => 0,
    };
    const loop = new ClaimLoop('test loop', source, 2, new ManualClock(0), logger);
    loop.start();
    for (let i = 0; i < 300 && ran.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    await loop.stop();
    expect(errors).toEqual(['test loop: claiming failed; retrying']);
    expect(ran).toEqual([42]);
  });

  it('stops waiting for work in flight when its time limit runs out', async () => {
    const never = new Promise<void>(() => {});
    const loop = new ClaimLoop(
      'test loop',
      { claim: () => [1], run: () => never, nextDueAt: () => null },
      1,
      new ManualClock(0),
      createLogger('silent'),
    );
    void loop.runOnce();
    expect(loop.busy).toBe(1);
    await loop.stop(20);
    expect(loop.busy).toBe(1);
  });
});
