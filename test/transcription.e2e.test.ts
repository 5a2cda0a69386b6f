import fs from 'node:fs';
import { MEETING_SCRIPT, recordSpeech, startReceiver, wordErrorRate, type TestReceiver } from '@svc/service/testing';
import { call, startService, svcCli, tempDataDir, unlimitedKey, waitFor, type ServiceProcess } from './support/service-process';

// Transcription takes tens of seconds of CPU, more on a loaded machine; each wait below has its own bound.
jest.setTimeout(600_000);

// A scripted meeting with a decision and an action item, spoken by flite's rms voice.
const SCRIPT = MEETING_SCRIPT;
const ENV = { SVC_ALLOW_INSECURE_WEBHOOKS: 'true', SVC_RTC_WORKERS: '0' };
const EVENTS = ['recording.ready', 'transcript.ready', 'summary.ready'];

/**
 * The types of the distinct events the receiver got for one meeting, in order of first arrival. Webhooks are
 * at least once: a delivery in flight when the service is killed is sent again (same event id) after the restart.
 */
function eventsFor(receiver: TestReceiver, meetingId: string): string[] {
  const events = receiver.requests
    .map((r) => JSON.parse(r.rawBody.toString('utf8')) as { id: string; type: string; data: { meeting: { id: string } } })
    .filter((e) => e.data.meeting.id === meetingId);
  return [...new Map(events.map((e) => [e.id, e.type])).values()];
}

describe('transcription and summaries (real service, pocketsphinx)', () => {
  let dataDir: string;
  let key: string;
  let receiver: TestReceiver;
  let svc: ServiceProcess | undefined;
  beforeAll(async () => {
    dataDir = tempDataDir();
    key = unlimitedKey(dataDir);
    receiver = await startReceiver();
  });
  afterAll(async () => {
    if (svc && process.env.SVC_E2E_DEBUG) process.stdout.write(svc.stdout());
    await svc?.stop('SIGKILL');
    await receiver.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const meeting = async (title: string) =>
    (await call(svc!.url, 'POST', '/api/v1/public/meetings', key, { title, settings: { transcription_auto: true } })).body as {
      id: string;
    };
  const get = (p: string) => call(svc!.url, 'GET', `/api/v1/public${p}`, key);
  // recordSpeech blocks this process for seconds, so the first request after it may meet a keep-alive socket the service closed.
  const exists = async (p: string) => (await get(p).catch(() => null))?.status === 200;

  it('transcribes a recorded meeting, summarizes it with its decision and action item, indexes it, and sends the events in order', async () => {
    svc = await startService(dataDir, ENV);
    expect((await call(svc.url, 'POST', '/api/v1/public/webhook-endpoints', key, { url: receiver.url, events: EVENTS })).status).toBe(201);
    const m = await meeting('Weekly planning');
    // Two people take turns, each on their own microphone track (flite's rms and slt voices), as the room recorder keeps them.
    recordSpeech(dataDir, m.id, { sentences: SCRIPT, participants: ['Robert Brown', 'Dana White'], voices: ['rms', 'slt'] });
    const people = (await get(`/meetings/${m.id}/participants`)).body.data as { id: string; name: string }[];
    const idOf = (name: string) => people.find((p) => p.name === name)!.id;

    await waitFor(() => exists(`/meetings/${m.id}/transcript`), 240_000);
    const transcript = (await get(`/meetings/${m.id}/transcript`)).body;
    const wer = wordErrorRate(SCRIPT.join(' '), transcript.text);
    process.stdout.write(`transcription e2e: WER ${wer.toFixed(3)} over ${transcript.segments.length} segments\n`);
    expect(wer).toBeLessThanOrEqual(0.25);
    // Every segment names its speaker and their participant: Robert spoke the even sentences, Dana the odd ones.
    const named = (name: string) => ({ speaker: name, participant_id: idOf(name) });
    expect(transcript.segments[0]).toMatchObject({ ...named('Robert Brown'), start: expect.any(Number), end: expect.any(Number) });
    expect(new Set(transcript.segments.map((s: { speaker: string }) => s.speaker))).toEqual(new Set(['Robert Brown', 'Dana White']));
    for (const segment of transcript.segments) expect(segment).toMatchObject(named(segment.speaker));
    expect(transcript.segments.find((s: { text: string }) => /staging server/.test(s.text))).toMatchObject(named('Dana White'));

    await waitFor(() => exists(`/meetings/${m.id}/summary`), 60_000);
    const summary = (await get(`/meetings/${m.id}/summary`)).body;
    expect(summary.generator).toBe('extractive');
    expect(summary.decisions).toEqual([
      // Dana (flite's slt voice) says it: pocketsphinx may hear "a billing service".
      {
        text: expect.stringMatching(/we decided to launch (the|a) billing service on friday/i),
        cite: [expect.any(Number)],
        speakers: ['Dana White'],
        start_seconds: expect.any(Number),
      },
    ]);
    const item = summary.action_items.find((a: { owner: string | null }) => a.owner === 'Robert Brown');
    expect(item).toMatchObject({ text: expect.stringMatching(/update the customer documentation/i), due: expect.any(String) });
    expect(transcript.segments[item.cite[0]].text).toMatch(/update the customer documentation/);
    expect(item.speakers).toEqual(['Robert Brown']);

    const hits = (await get(`/search?q=${encodeURIComponent('customer documentation')}`)).body.data;
    expect(hits[0]).toMatchObject({ meeting: { id: m.id }, source: 'transcript', segment_index: item.cite[0] });
    expect(hits[0].text).toMatch(/update the customer documentation/);
    expect(hits[0]).toMatchObject(named('Robert Brown'));

    await waitFor(() => eventsFor(receiver, m.id).length >= 3, 30_000);
    expect(eventsFor(receiver, m.id)).toEqual(EVENTS);
    const ready = receiver.requests
      .map((r) => JSON.parse(r.rawBody.toString('utf8')))
      .find((e) => e.type === 'transcript.ready' && e.data.meeting.id === m.id);
    expect(ready.data.transcript.speakers).toEqual(
      [named('Robert Brown'), named('Dana White')].map(({ speaker, participant_id }) => ({ name: speaker, participant_id })),
    );
  });

  it('finishes a transcription the service was killed in the middle of, once, after the restart', async () => {
    const m = await meeting('Long planning');
    const recordingId = recordSpeech(dataDir, m.id, { sentences: SCRIPT, participants: ['Robert Brown'], repeat: 2 });
    const transcribeJob = () =>
      (
        JSON.parse(svcCli(dataDir, 'jobs', 'list', '--json').stdout) as {
          kind: string;
          status: string;
          payload: string;
          attempt_count: number;
        }[]
      ).find((j) => j.kind === 'transcribe' && j.status !== 'succeeded');
    await waitFor(() => transcribeJob()?.status === 'running', 60_000);
    expect(await svc!.stop('SIGKILL')).toBeNull();
    expect((await get(`/meetings/${m.id}/transcript`).catch(() => ({ status: 0 }))).status).toBe(0);

    svc = await startService(dataDir, ENV);
    await waitFor(() => exists(`/meetings/${m.id}/summary`), 480_000);
    await waitFor(() => eventsFor(receiver, m.id).length >= 3, 30_000);
    expect(eventsFor(receiver, m.id)).toEqual(EVENTS);
    const jobs = JSON.parse(svcCli(dataDir, 'jobs', 'list', '--json').stdout) as { kind: string; status: string; payload: string }[];
    const mine = jobs.filter((j) => j.payload.includes(recordingId) || j.payload.includes(m.id));
    expect(mine.map((j) => [j.kind, j.status])).toEqual([
      ['summarize', 'succeeded'],
      ['transcribe', 'succeeded'],
    ]);
  });
});
