import type { Principal } from '../identity/identity.service';
import type { Services } from '../services';
import type { TranscriptSegment } from '../transcripts/transcripts.repo';

/** One meeting of the question-answering corpus: its title and what was said, segment by segment. */
export interface CorpusMeeting {
  title: string;
  segments: TranscriptSegment[];
}

/** Segments one after the other from `at` seconds: `[speaker, text, seconds it lasts]`. */
function spoken(at: number, lines: [string, string, number][]): TranscriptSegment[] {
  return lines.map(([speaker, text, seconds]) => {
    const segment = { start: at, end: at + seconds, speaker, participant_id: null, text };
    at += seconds;
    return segment;
  });
}

/**
 * Five meetings of one company with overlapping vocabulary (budget, launch, hiring and outages come up in more
 * than one), as a transcription engine would segment them: the corpus ask_meetings is measured on.
 */
export const CORPUS: Record<'budget' | 'launch' | 'hiring' | 'retro' | 'allHands', CorpusMeeting> = {
  budget: {
    title: 'Q3 budget review',
    segments: spoken(0, [
      ['Maria', 'Okay, let us get started. This is the Q3 budget review, and we are about eight percent over plan year to date.', 9],
      ['Maria', 'Most of the overrun is cloud spend and travel, so those are the two lines I want to talk about today.', 8],
      ['Tom', 'On cloud, the compute bill went up because we kept the old staging cluster running after the migration.', 9],
      ['Tom', 'If we shut staging down at night and on weekends we save roughly twelve thousand dollars a month.', 8],
      ['Maria', 'Good, do that. Travel is the other one. We are cutting the travel budget by thirty percent for the rest of the year.', 10],
      ['Dev', 'Does that include the trip to the Berlin trade show? Marketing already booked flights for four people.', 8],
      ['Maria', 'Berlin stays, it was approved in January. Everything else needs a VP sign-off from now on.', 7],
      [
        'Priya',
        'I can take the vendor side. Our cloud vendor contract renews in November and I will renegotiate it for a committed-use discount.',
        11,
      ],
      ['Maria', 'Thanks Priya. Please have a proposal ready before the October board meeting.', 6],
      ['Dev', 'What about the marketing budget for the Atlas launch, is that frozen too?', 6],
      ['Maria', 'No, the launch money is ring-fenced. Marketing keeps the two hundred thousand we agreed for the campaign.', 9],
      ['Tom', 'And hiring? We still have two open engineering roles in the plan.', 5],
      ['Maria', 'Hiring continues as planned, the headcount is already in the forecast, so nothing changes there.', 7],
      [
        'Maria',
        'To recap: staging off at night, travel down thirty percent, Priya renegotiates the vendor contract. See you next month.',
        9,
      ],
    ]),
  },
  launch: {
    title: 'Atlas launch planning',
    segments: spoken(0, [
      ['Sofia', 'Welcome everyone. Today we lock the plan for the Atlas launch: date, pricing and the beta program.', 8],
      ['Sofia', 'After the delay in August, the public launch date is now Tuesday the fourteenth of October.', 8],
      ['Lena', 'Engineering is fine with the fourteenth as long as the code freeze is on the thirtieth of September.', 8],
      ['Ken', 'For pricing we tested three options with customers, and the feedback was clear.', 6],
      ['Ken', 'We settled on two tiers: Starter at twelve dollars per seat per month and Business at twenty-nine, with no free tier.', 11],
      ['Omar', 'Support needs the help center articles a week before launch, otherwise we will drown in tickets.', 8],
      ['Sofia', 'Agreed, the docs team delivers the help center articles by the seventh of October.', 7],
      [
        'Ken',
        'Everyone on the beta waitlist gets two weeks of early access before the public launch, and a twenty percent discount for a year.',
        11,
      ],
      ['Lena', 'We need to keep an eye on capacity. The last launch took the signup service down for a few minutes.', 8],
      ['Lena', 'I will run a load test at three times the expected signups in the week before the launch.', 7],
      ['Omar', 'Who writes the launch announcement email?', 3],
      ['Ken', 'Marketing writes it and Sofia approves the final copy by October tenth.', 6],
      ['Sofia', 'Great. So: October fourteenth, two tiers, two weeks early access for the waitlist, load test the week before.', 9],
    ]),
  },
  hiring: {
    title: 'Platform team hiring sync',
    segments: spoken(0, [
      [
        'Rachel',
        'Quick hiring sync for the platform team. We have headcount for three backend engineers this quarter, two senior and one mid-level.',
        11,
      ],
      ['James', 'The pipeline is healthy, we have eleven candidates in the onsite stage right now.', 6],
      [
        'Rachel',
        'The problem is the take-home exercise. Candidates keep telling us it takes six to eight hours, which is far too long.',
        10,
      ],
      ['Nina', 'I agree. We are losing strong people who simply do not have a free weekend for it.', 6],
      ['James', 'Then let us replace the take-home with a ninety-minute pairing session on a real bug from our backlog.', 8],
      ['Nina', 'I can write the pairing exercise and a scoring rubric by next Friday.', 5],
      [
        'Rachel',
        'Offers: the senior salary band is one hundred sixty to one hundred ninety thousand, and we can go to the top for exceptional people.',
        11,
      ],
      ['James', 'Our last two offers were declined because of the return-to-office requirement, not the money.', 7],
      ['Rachel', 'Then we advertise the roles as remote-first within European time zones.', 6],
      ['Nina', 'Also the interview panel is always the same three people. I would like to train two more interviewers.', 8],
      ['James', 'Good idea. Nina trains Marco and Aisha as interviewers this month.', 5],
      ['Rachel', 'Summary: pairing session instead of the take-home, remote-first roles, and two new interviewers.', 7],
    ]),
  },
  retro: {
    title: 'Incident retro: checkout outage',
    segments: spoken(0, [
      ['Alex', 'This is the retro for last Thursday, when checkout was down. Blameless as always, we are looking at the system.', 9],
      ['Alex', 'Customers could not pay for forty-seven minutes, from 14:02 to 14:49 UTC. About three thousand orders failed.', 9],
      [
        'Beth',
        'The root cause was an expired TLS certificate on the payment gateway. Nobody renewed it because the renewal job had been disabled during the migration.',
        12,
      ],
      ['Carlos', 'Why did it take us so long to notice? Forty-seven minutes is a lot.', 5],
      ['Alex', 'Our alerts only watch error rates on the web tier, and the gateway failures were retried silently, so no alert fired.', 10],
      ['Dana', 'Support heard about it first, from customers on social media, about twenty minutes in.', 7],
      ['Beth', 'Once we knew, the fix itself took four minutes: we issued a new certificate and restarted the gateway.', 8],
      [
        'Carlos',
        'Action items. Beth, please re-enable the automatic certificate renewal and add alerting for certificate expiry thirty days ahead.',
        10,
      ],
      ['Alex', 'I will add an alert on the payment success rate, paging on-call when it drops below ninety-five percent.', 8],
      ['Dana', 'Support wants a status page update within ten minutes of any checkout incident.', 6],
      ['Carlos', 'Agreed. Dana owns the status page runbook. We also refund shipping on all the failed orders.', 8],
      ['Alex', 'Thanks all, I will publish the written postmortem by Wednesday.', 5],
    ]),
  },
  allHands: {
    title: 'Monthly all-hands',
    segments: spoken(0, [
      ['Grace', 'Hi everyone, welcome to the monthly all-hands. Lots of updates, so let us go quickly.', 7],
      ['Grace', 'Revenue grew eleven percent last month, our best month this year, mostly from the Business plan.', 8],
      ['Grace', 'We welcomed six new colleagues, and we are still hiring, so please refer people you would like to work with.', 9],
      ['Sam', 'Quick reminder from people ops: the annual engagement survey closes on Friday, please fill it in.', 7],
      ['Grace', 'The Atlas launch is coming up in October. Sofia will give a full demo at the next all-hands.', 7],
      ['Sam', 'The office will be closed on the third of October for the public holiday.', 6],
      ['Grace', "Finally, thank you to the payments team for handling last week's incident so calmly.", 7],
      ['Sam', 'And the summer party photos are on the intranet. That is all, thank you.', 6],
    ]),
  },
};

/** A question about the corpus and where its answer was said: the meeting and the transcript segment's index. */
export interface CorpusQuestion {
  question: string;
  meeting: keyof typeof CORPUS;
  segment: number;
}

/** Ten questions with their answers in the corpus, phrased as people ask them (rarely in the speaker's words). */
export const CORPUS_QUESTIONS: CorpusQuestion[] = [
  { question: 'How much are we cutting from the travel budget?', meeting: 'budget', segment: 4 },
  { question: 'Who is going to renegotiate the cloud vendor contract?', meeting: 'budget', segment: 7 },
  { question: 'When is the public launch of Atlas?', meeting: 'launch', segment: 1 },
  { question: 'Which pricing tiers did we decide on for the launch?', meeting: 'launch', segment: 4 },
  { question: 'What do people on the beta waitlist get?', meeting: 'launch', segment: 7 },
  { question: 'How many backend engineers can the platform team hire this quarter?', meeting: 'hiring', segment: 0 },
  { question: 'What did candidates say about the take-home exercise?', meeting: 'hiring', segment: 2 },
  { question: 'What caused the checkout outage?', meeting: 'retro', segment: 2 },
  { question: 'For how many minutes could customers not pay?', meeting: 'retro', segment: 1 },
  { question: 'Who will add alerting for certificate expiry?', meeting: 'retro', segment: 7 },
];

/** Questions whose answer is nowhere in the corpus. */
export const UNANSWERABLE_QUESTIONS = [
  'What is the parental leave policy?',
  'Which database did we choose for the analytics warehouse?',
  'What is the budget for the new Berlin office?',
];

/** The corpus's meetings, created and transcribed through the services (so transcript.ready fires and the index is written). */
export function seedCorpus(
  services: Services,
  principal: Principal,
): Record<keyof typeof CORPUS, { id: string; code: string; title: string }> {
  const entries = Object.entries(CORPUS).map(([key, { title, segments }]) => {
    const meeting = services.meetings.create(principal, { title });
    services.transcripts.complete(meeting.id, { language: 'en', segments });
    return [key, { id: meeting.id, code: meeting.code, title }];
  });
  return Object.fromEntries(entries) as Record<keyof typeof CORPUS, { id: string; code: string; title: string }>;
}
