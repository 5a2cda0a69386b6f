import { hostRoomCredential, joinRoom, roomCredential, seedMeeting, startTestServer, type TestServer } from '@svc/service/testing';
import type { Poll } from './polls.protocol';

let t: TestServer;
let key: string;

beforeAll(async () => {
  t = await startTestServer({ SVC_ROOM_RATE_LIMIT_PER_SECOND: '100000' }, { media: true });
  key = t.key();
});
afterAll(() => t.close());

/** A host and two guests in a new meeting's room. */
async function roomOfThree() {
  const m = seedMeeting(t);
  const { client: host } = await joinRoom(await hostRoomCredential(t, key, m));
  const { client: ann } = await joinRoom(await roomCredential(t, m.code, { name: 'Ann' }));
  const { client: bob } = await joinRoom(await roomCredential(t, m.code, { name: 'Bob' }));
  return { m, host, ann, bob };
}

const listed = async (meetingId: string, scopes?: Parameters<TestServer['key']>[0]) =>
  t.request('GET', `/api/v1/public/meetings/${meetingId}/polls`, { key: scopes ? t.key(scopes) : key });

describe('polls over the room socket', () => {
  it('a host opens a poll, guests vote (a change replaces the vote), the host sees live results, closing shows them to all', async () => {
    const { m, host, ann, bob } = await roomOfThree();
    const { poll } = await host.ok('createPoll', { question: 'Lunch?', options: ['Pizza', 'Sushi', 'Salad'] });
    expect(poll).toMatchObject({ question: 'Lunch?', multiple: false, anonymous: false, status: 'open', mine: [] });
    const opened = await ann.next('pollOpened');
    expect(opened.poll.id).toBe(poll.id);
    // Guests do not see counts while the poll is open.
    expect(opened.poll.options.map((o) => o.votes)).toEqual([null, null, null]);
    const [pizza, sushi, salad] = poll.options.map((o) => o.id) as [string, string, string];

    expect((await ann.ok('votePoll', { pollId: poll.id, optionIds: [pizza] })).poll).toMatchObject({ mine: [pizza] });
    expect((await host.next('pollResults')).poll.options.map((o) => o.votes)).toEqual([1, 0, 0]);
    await bob.ok('votePoll', { pollId: poll.id, optionIds: [sushi] });
    // Ann changes her mind: her vote moves, it is not added.
    const changed = await ann.ok('votePoll', { pollId: poll.id, optionIds: [sushi] });
    expect(changed.poll.options.map((o) => o.votes)).toEqual([null, null, null]);
    const live = (await host.next('pollResults', 2)).poll;
    expect(live.options.map((o) => o.votes)).toEqual([0, 2, 0]);
    expect(live.voters).toBe(2);
    expect(live.options[1]!.voters!.map((v) => v.name).sort()).toEqual(['Ann', 'Bob']);
    expect(ann.all('pollResults')).toEqual([]);

    const closed = await host.ok('closePoll', { pollId: poll.id });
    expect(closed.poll).toMatchObject({ status: 'closed', closed_at: expect.any(String) });
    for (const guest of [ann, bob]) {
      const { poll: shown } = await guest.next('pollClosed');
      expect(shown.options.map((o) => o.votes)).toEqual([0, 2, 0]);
    }
    expect(await ann.call('votePoll', { pollId: poll.id, optionIds: [salad] })).toMatchObject({ ok: false, error: { code: 'conflict' } });
    expect(await host.call('closePoll', { pollId: poll.id })).toMatchObject({ ok: false, error: { code: 'conflict' } });

    const res = await listed(m.id);
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(1);
    const stored: Poll = res.body.data[0];
    expect(stored).toMatchObject({ id: poll.id, status: 'closed', multiple: false, anonymous: false, voters: 2 });
    expect(stored.options.map((o) => [o.text, o.votes])).toEqual([
      ['Pizza', 0],
      ['Sushi', 2],
      ['Salad', 0],
    ]);
    expect((await listed(m.code)).body).toEqual(res.body);
    // A page that reconnects asks for the polls: the guest sees the closed results and their own choice.
    expect((await ann.ok('listPolls', {})).polls).toEqual([expect.objectContaining({ id: poll.id, mine: [sushi], status: 'closed' })]);
  });

  it('refuses a guest creating or closing a poll, two options in a single-choice poll, unknown options and bad polls; nothing changes', async () => {
    const { m, host, ann } = await roomOfThree();
    expect(await ann.call('createPoll', { question: 'Mine?', options: ['a', 'b'] })).toMatchObject({
      ok: false,
      error: { code: 'insufficient_scope' },
    });
    const { poll } = await host.ok('createPoll', { question: 'One?', options: ['a', 'b'] });
    const [a, b] = poll.options.map((o) => o.id) as [string, string];
    expect(await ann.call('closePoll', { pollId: poll.id })).toMatchObject({ ok: false, error: { code: 'insufficient_scope' } });
    expect(await ann.call('votePoll', { pollId: poll.id, optionIds: [a, b] })).toMatchObject({
      ok: false,
      error: { code: 'validation_failed', message: expect.stringMatching(/single choice/) },
    });
    expect(await ann.call('votePoll', { pollId: poll.id, optionIds: ['opt_nope'] })).toMatchObject({
      ok: false,
      error: { code: 'validation_failed' },
    });
    expect(await ann.call('votePoll', { pollId: 'pol_nope', optionIds: [a] })).toMatchObject({ ok: false, error: { code: 'not_found' } });
    for (const bad of [
      { question: 'Too few', options: ['only'] },
      { question: 'Too many', options: Array.from({ length: 11 }, (_, i) => `o${i}`) },
      { question: ' ', options: ['a', 'b'] },
      { question: 'Same', options: ['a', 'A '] },
      { question: 'Blank option', options: ['a', '  '] },
      { question: 'Two\nlines', options: ['a', 'b'] },
      { question: 'Extra', options: ['a', 'b'], extra: true },
    ]) {
      expect([bad.question, await host.call('createPoll', bad as never)]).toEqual([
        bad.question,
        expect.objectContaining({ ok: false, error: expect.objectContaining({ code: 'validation_failed' }) }),
      ]);
    }
    const stored = (await listed(m.id)).body.data as Poll[];
    expect(stored).toHaveLength(1);
    expect(stored[0]!.options.map((o) => o.votes)).toEqual([0, 0]);
  });

  it('counts several choices in a multiple-choice poll and keeps no names in an anonymous one', async () => {
    const { m, host, ann, bob } = await roomOfThree();
    const { poll } = await host.ok('createPoll', {
      question: 'Which days?',
      options: ['Mon', 'Tue', 'Wed'],
      multiple: true,
      anonymous: true,
    });
    const [mon, tue, wed] = poll.options.map((o) => o.id) as [string, string, string];
    await ann.ok('votePoll', { pollId: poll.id, optionIds: [mon, wed] });
    await bob.ok('votePoll', { pollId: poll.id, optionIds: [wed] });
    expect(await bob.call('votePoll', { pollId: poll.id, optionIds: [tue, tue] })).toMatchObject({ ok: false });
    await host.ok('closePoll', { pollId: poll.id });
    const [stored] = (await listed(m.id)).body.data as Poll[];
    expect(stored!.options.map((o) => o.votes)).toEqual([1, 0, 2]);
    expect(stored!.voters).toBe(2);
    expect(stored!.options.some((o) => 'voters' in o)).toBe(false);
    expect(JSON.stringify(stored)).not.toMatch(/Ann|Bob/);
  });

  it('GET /meetings/{id}/polls needs meetings:read and a meeting of the key’s organization', async () => {
    const { m } = await roomOfThree();
    expect((await listed(m.id, ['recordings:read'])).status).toBe(403);
    expect((await listed('mtg_unknown')).status).toBe(404);
    expect((await t.request('GET', `/api/v1/public/meetings/${m.id}/polls`)).status).toBe(401);
    expect((await listed(m.id)).body).toEqual({ data: [] });
  });
});
