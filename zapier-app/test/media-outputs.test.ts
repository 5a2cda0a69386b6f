import fs from 'node:fs';
import {
  MEETING_SCRIPT,
  recordSpeechWith,
  seedBreakoutRoom,
  seedParticipant,
  startReceiver,
  type TestReceiver,
  type TestServer,
} from '@svc/service/testing';
import type { Bundle, ZObject } from 'zapier-platform-core';
import type { Subscription, SvcEvent } from '../src/api';
import { withTranscriptText } from '../src/triggers/transcript_ready';
import { startFakeZapierFiles, type FakeZapierFiles } from './fake-zapier-files';
import { authDataFor, callApi, expectFieldsCover, expectSameShape, startService, zapierHookBundle } from './support';

type AppModule = typeof import('../src');
type CoreModule = typeof import('zapier-platform-core');
type Perform = (z: ZObject, bundle: Bundle) => unknown;
type Operation = { perform: Perform; performList: Perform; performSubscribe: Perform; sample: unknown; outputFields: { key: string }[] };

const MEDIA_TRIGGERS = {
  recording_ready: 'recording.ready',
  transcript_ready: 'transcript.ready',
  summary_ready: 'summary.ready',
} as const;
type MediaTrigger = keyof typeof MEDIA_TRIGGERS;
const DAY_MS = 24 * 60 * 60 * 1000;

/** The method and input of a pointer `z.dehydrateFile` made: `hydrate|||{json}|||hydrate`. */
function dehydrated(pointer: unknown): { type: string; method: string; bundle: Record<string, string> } {
  const match = /^hydrate\|\|\|(.+)\|\|\|hydrate$/.exec(String(pointer));
  expect(match).not.toBeNull();
  return JSON.parse(match![1]!);
}

describe('media trigger outputs (real pipeline: flite speech, pocketsphinx, extractive summary)', () => {
  let files: FakeZapierFiles;
  let App: AppModule['default'];
  let appTester: ReturnType<CoreModule['createAppTester']>;
  let t: TestServer;
  let receiver: TestReceiver;
  let fullAuth: { base_url: string; api_key: string };
  let meetingId: string;
  let recordingId: string;
  const outputs = {} as Record<MediaTrigger, SvcEvent>;
  const subscriptions = {} as Record<MediaTrigger, Subscription>;
  const savedEnv = { base: process.env.ZAPIER_BASE_ENDPOINT, key: process.env.ZAPIER_DEPLOY_KEY };

  const operation = (key: MediaTrigger) => (App.triggers[key] as unknown as { operation: Operation }).operation;
  const api = (path: string) => callApi(t, fullAuth.api_key)('GET', path);

  beforeAll(async () => {
    // z.stashFile asks Zapier's RPC for an upload form; core reads where that is when it loads, so the app is loaded afresh here.
    files = await startFakeZapierFiles();
    process.env.ZAPIER_BASE_ENDPOINT = files.baseEndpoint;
    process.env.ZAPIER_DEPLOY_KEY = files.deployKey;
    jest.isolateModules(() => {
      /* eslint-disable @typescript-eslint/no-require-imports -- a fresh copy of core and the app, after the environment is set */
      App = (require('../src') as AppModule).default;
      appTester = (require('zapier-platform-core') as CoreModule).createAppTester(App);
      /* eslint-enable @typescript-eslint/no-require-imports */
    });

    t = await startService();
    fullAuth = authDataFor(t, t.key());
    receiver = await startReceiver();
    for (const key of Object.keys(MEDIA_TRIGGERS) as MediaTrigger[]) {
      subscriptions[key] = (await appTester(operation(key).performSubscribe, {
        authData: fullAuth,
        targetUrl: receiver.url,
      })) as Subscription;
    }

    const created = await callApi(t, fullAuth.api_key)('POST', '/meetings', {
      title: 'Weekly planning',
      settings: { transcription_auto: true },
    });
    meetingId = created.body.id;
    recordingId = recordSpeechWith(t.services, t.dataDir, meetingId, {
      sentences: MEETING_SCRIPT,
      participants: ['Robert Brown', 'Dana White'],
      // Each on their own track (named speakers), both in the voice pocketsphinx hears best.
      voices: ['rms', 'rms'],
    });
    const jobs = t.jobWorker();
    for (let run = 0; run < 4 && (await api(`/meetings/${meetingId}/summary`)).status !== 200; run++) await jobs.runOnce();
    expect((await api(`/meetings/${meetingId}/summary`)).status).toBe(200);

    const deliveries = t.deliveryWorker();
    for (let run = 0; run < 6 && receiver.requests.length < 3; run++) await deliveries.runOnce();
    expect(receiver.requests).toHaveLength(3);
    for (const request of receiver.requests) {
      const delivery = zapierHookBundle(request);
      const key = (Object.keys(MEDIA_TRIGGERS) as MediaTrigger[]).find(
        (k) => MEDIA_TRIGGERS[k] === (delivery.cleanedRequest as SvcEvent).type,
      )!;
      const result = (await appTester(operation(key).perform, {
        authData: fullAuth,
        subscribeData: subscriptions[key],
        ...delivery,
      })) as SvcEvent[];
      expect(result).toHaveLength(1);
      outputs[key] = result[0]!;
    }
  }, 240_000);

  afterAll(async () => {
    await receiver?.close();
    await t?.close();
    await files?.close();
    for (const [name, value] of [
      ['ZAPIER_BASE_ENDPOINT', savedEnv.base],
      ['ZAPIER_DEPLOY_KEY', savedEnv.key],
    ] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  describe('recording_ready', () => {
    const hydrate = (authData: { base_url: string; api_key: string }) => {
      const pointer = dehydrated((outputs.recording_ready.data.recording as { file: string }).file);
      expect(pointer).toMatchObject({ type: 'file', method: 'hydrators.recordingFile' });
      return appTester(App.hydrators!.recordingFile as Perform, { authData, inputData: pointer.bundle }) as Promise<string>;
    };
    const stashedBytes = async (url: string) => Buffer.from(await (await fetch(url)).arrayBuffer());
    const recordingBytes = () => fs.readFileSync(t.services.recordings.readyFile(recordingId).path);

    it('hands the Zap the recording as a file: hydrated by its signed URL (a key without recordings:read will do), the bytes stashed as recorded', async () => {
      const recording = outputs.recording_ready.data.recording as { id: string; download_url: string };
      expect(recording.id).toBe(recordingId);
      expect(dehydrated((recording as unknown as { file: string }).file).bundle).toEqual({
        recording_id: recordingId,
        download_url: recording.download_url,
      });
      const url = await hydrate(authDataFor(t, t.key(['webhooks:write'])));
      expect(files.refused).toEqual([]);
      expect(files.stashed.at(-1)).toMatchObject({ filename: `${recordingId}.webm`, contentType: 'audio/webm' });
      expect(recordingBytes().length).toBeGreaterThan(10_000);
      expect((await stashedBytes(url)).equals(recordingBytes())).toBe(true);
    });

    it('matches its sample and output fields', () => {
      expectSameShape(operation('recording_ready').sample, outputs.recording_ready);
      expectFieldsCover(operation('recording_ready').outputFields, outputs.recording_ready);
    });

    it('falls back to the API key once the signed URL has expired, and then needs recordings:read', async () => {
      t.clock.advance(DAY_MS + 60_000);
      await expect(hydrate(authDataFor(t, t.key(['webhooks:write'])))).rejects.toThrow(/recordings:read/);
      const url = await hydrate(authDataFor(t, t.key(['recordings:read'])));
      expect((await stashedBytes(url)).equals(recordingBytes())).toBe(true);
    });
  });

  describe('transcript_ready', () => {
    it('carries the transcript’s full text and its segments, as the API has them', async () => {
      const transcript = (await api(`/meetings/${meetingId}/transcript`)).body;
      expect(transcript.text).toMatch(/billing service/i);
      expect(outputs.transcript_ready.data.transcript).toEqual({
        breakout_room_id: null,
        language: 'en',
        segment_count: transcript.segments.length,
        speakers: [
          { name: 'Robert Brown', participant_id: expect.stringMatching(/^prt_/) },
          { name: 'Dana White', participant_id: expect.stringMatching(/^prt_/) },
        ],
        text: transcript.text,
        segments: transcript.segments,
      });
      expectSameShape(operation('transcript_ready').sample, outputs.transcript_ready);
      expectFieldsCover(operation('transcript_ready').outputFields, outputs.transcript_ready);
    });
  });

  describe('transcript_ready for a breakout room', () => {
    it('carries that room’s own transcript (read from its breakout room), not the meeting’s', async () => {
      seedBreakoutRoom(t, seedParticipant(t, meetingId, { name: 'Ann' }));
      const room = t.services.breakouts.current(meetingId).rooms[0]!.id;
      const segments = [{ start: 0, end: 1, speaker: 'Ann', text: 'only said in the breakout room' }];
      t.services.transcripts.complete(meetingId, { language: 'en', segments }, room);
      const event = (await api('/triggers/transcript.ready?limit=1')).body.data[0] as SvcEvent;
      expect(event.data.transcript).toMatchObject({ breakout_room_id: room });
      const output = (await appTester((z: ZObject, bundle: Bundle) => withTranscriptText(z, bundle, event), {
        authData: fullAuth,
      })) as SvcEvent;
      expect(output.data.transcript).toMatchObject({ breakout_room_id: room, text: 'only said in the breakout room', segment_count: 1 });
    });
  });

  describe('summary_ready', () => {
    it('carries the TL;DR, and the decisions and action items (owner, due) as line items', async () => {
      const summary = (await api(`/meetings/${meetingId}/summary`)).body;
      const output = outputs.summary_ready.data.summary as Record<string, unknown>;
      expect(output).toMatchObject({
        tldr: summary.tldr,
        decisions: summary.decisions.map(({ text }: { text: string }) => ({ text })),
        action_items: summary.action_items.map(({ text, owner, due }: Record<string, unknown>) => ({ text, owner, due })),
        generator: 'extractive',
      });
      expect(output.tldr).not.toBe('');
      expect(output.decisions).toEqual([{ text: expect.stringMatching(/we decided to launch the billing service on friday/i) }]);
      expect(output.action_items).toContainEqual({
        text: expect.stringMatching(/update the customer documentation/i),
        owner: 'Robert Brown',
        due: expect.stringMatching(/^\d{4}-\d\d-\d\d$/),
      });
      expect(output.action_items_text).toMatch(/customer documentation.*\(Robert Brown, due \d{4}-\d\d-\d\d\)/i);
      expectSameShape(operation('summary_ready').sample, outputs.summary_ready);
      expectFieldsCover(operation('summary_ready').outputFields, outputs.summary_ready);
    });

    it('gives the editor the same output from the polling feed', async () => {
      const listed = (await appTester(operation('summary_ready').performList, { authData: fullAuth, meta: { limit: 1 } })) as SvcEvent[];
      expect(listed).toEqual([outputs.summary_ready]);
    });
  });
});
