/** Waits until `check` holds, re-checking every 20 ms; throws naming `what` after `ms` (tests wait for conditions, never for fixed times). */
export async function waitUntil(check: () => boolean | Promise<boolean>, what: string, ms = 10_000): Promise<void> {
  const giveUpAt = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > giveUpAt) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
