/**
 * Join to first remote frame in headless Chromium against the built service: one page in the room
 * sends its (fake) camera and microphone, then a new page joins BENCH_JOINS times, each timed from
 * the click on Join to the first remote video frame it shows. See bench/rtc/README.md.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Browser } from 'playwright-core';
import {
  joinAndTimeFirstFrame,
  joinRoom,
  launchBrowser,
  openPage,
  roomUrl,
  waitForPreview,
  type RoomPage,
} from '../../test/support/browser';
import { cleanUpOnExit, machine, markdownTable, otherCpuText, percentile, progress, runMain, smokeOr, verdict } from '../support';
import { watchOtherCpuOutsideTree } from './process-tree';
import { withRoomService } from './room-service';

const JOINS = Number(process.env.BENCH_JOINS ?? smokeOr(5, 1));
/** The single worker's WebRtcServer port; the other rtc benchmarks use 29800 and 29900-29999. */
const RTC_PORT = 29_801;
/** The target on loopback. */
const TARGET_MS = 1_500;
const FIRST_FRAME_TIMEOUT_MS = 20_000;
/** Pause between joins, so one page's leaving is over before the next one joins. */
const BETWEEN_JOINS_MS = 1_000;
const RUN_DEADLINE_MS = 4 * 60_000;

interface Join {
  ms: number;
  otherCpu: number | null;
}

async function main(): Promise<void> {
  cleanUpOnExit(RUN_DEADLINE_MS);
  if (!Number.isInteger(JOINS) || JOINS < 1) throw new Error(`bad BENCH_JOINS: ${process.env.BENCH_JOINS}`);
  const joins = await withRoomService(RTC_PORT, async ({ baseUrl, createMeeting }) => {
    const code = await createMeeting('Join latency benchmark');
    let browser: Browser | undefined;
    const pages: RoomPage[] = [];
    try {
      browser = await launchBrowser();
      const sender = await openPage(browser, roomUrl(baseUrl, code, { name: 'Sender' }));
      pages.push(sender);
      await waitForPreview(sender.page);
      if ((await joinRoom(sender.page)) !== 'room') throw new Error('the sending page was not let into the room');
      const results: Join[] = [];
      for (let i = 1; i <= JOINS; i++) {
        const joiner = await openPage(browser, roomUrl(baseUrl, code, { name: `Joiner ${i}` }));
        pages.push(joiner);
        await waitForPreview(joiner.page);
        const otherCpu = watchOtherCpuOutsideTree();
        const ms = await joinAndTimeFirstFrame(joiner.page, undefined, FIRST_FRAME_TIMEOUT_MS);
        results.push({ ms, otherCpu: otherCpu() });
        progress(`join ${i}: first remote frame after ${ms} ms`);
        await joiner.close();
        pages.pop();
        await sleep(BETWEEN_JOINS_MS);
      }
      return results;
    } finally {
      for (const page of pages) await page.close().catch(() => undefined);
      await browser?.close();
    }
  });
  const sorted = joins.map((j) => j.ms).sort((a, b) => a - b);
  const median = percentile(sorted, 50);
  const max = sorted.at(-1)!;
  process.stdout.write(
    `\nJoin to first remote video frame, headless Chromium (fake camera and microphone) against the built service with one media worker, ` +
      `loopback, one page in the room sending; ${machine()}\n\n` +
      markdownTable(
        ['join', 'click to first remote frame ms', 'other CPU (outside the benchmark, service and browser)'],
        joins.map((j, i) => [i + 1, j.ms, otherCpuText(j.otherCpu)]),
        [0, 1, 2],
      ) +
      `\n\n- median ${median} ms, max ${max} ms over ${JOINS} joins\n` +
      `- median under ${TARGET_MS} ms on loopback: ${verdict(median < TARGET_MS)}; every join under ${TARGET_MS} ms: ${verdict(max < TARGET_MS)}\n`,
  );
}

runMain(main);
