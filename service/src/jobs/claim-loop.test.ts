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
});
