/** A turn of a scripted meeting: one speaker saying some sentences in a row (a run-on when spoken without pauses). */
export interface ScriptedTurn {
  speaker: string;
  sentences: string[];
}

/** A decision or action item a summary should find; `words` are the content words that identify it. */
export interface ExpectedItem {
  words: string;
  /** Action items: the owner's full name, or null when the task names nobody. */
  owner?: string | null;
  /** Action items: the due day (YYYY-MM-DD), or null when none is said. */
  due?: string | null;
}

/** A scripted meeting of the evaluation set: who speaks with which flite voice, what they say, and what a summary must find. */
export interface ScriptedMeeting {
  name: string;
  /** Participant name -> flite voice. */
  voices: Record<string, string>;
  turns: ScriptedTurn[];
  decisions: ExpectedItem[];
  actions: ExpectedItem[];
}

/** The day every scripted meeting takes place: a Monday, so "by Thursday" is 2026-11-26. */
export const EVAL_MEETING_DATE = '2026-11-23T10:00:00.000Z';

/**
 * The evaluation set: twelve meetings with varied phrasing of decisions ("we decided to", "let's go with", "the
 * decision is", "we agreed", "is approved") and action items ("NAME will ... by DAY", "can you ...", "I will ...",
 * "action item for NAME to ...", "NAME needs to ..."), distractors that look like either (a team that "will" do
 * something, "can you hear me", a report of last week), two or three voices each. The first is issue 25's meeting:
 * one speaker's run-on holds the decision and Grace's action item.
 */
export const EVAL_MEETINGS: ScriptedMeeting[] = [
  {
    name: 'release planning',
    voices: { 'Robert Brown': 'rms', 'Grace Hill': 'awb' },
    turns: [
      {
        speaker: 'Robert Brown',
        sentences: [
          'Good morning everyone, thanks for joining the release planning meeting.',
          'The new billing service passed all of its tests on the staging server last night.',
          'After a long discussion we decided to launch the billing service on Friday.',
          'Grace will write the release notes by Thursday.',
        ],
      },
      {
        speaker: 'Grace Hill',
        sentences: ['Sounds good.', 'The support team will watch the error logs during the first week.'],
      },
    ],
    decisions: [{ words: 'launch billing service friday' }],
    actions: [{ words: 'write release notes', owner: 'Grace Hill', due: '2026-11-26' }],
  },
  {
    name: 'landing page design',
    voices: { 'Maria Lopez': 'kal16', 'David Clark': 'rms' },
    turns: [
      {
        speaker: 'Maria Lopez',
        sentences: [
          'We looked at three designs for the new landing page.',
          'The blue design tested best with customers.',
          "Let's go with the blue design for the landing page.",
        ],
      },
      {
        speaker: 'David Clark',
        sentences: ['Sounds good to me.', 'I will build the new page by Wednesday.', 'Maria, can you send me the final images tomorrow?'],
      },
    ],
    decisions: [{ words: 'blue design landing page' }],
    actions: [
      { words: 'build new page', owner: 'David Clark', due: '2026-11-25' },
      { words: 'send final images', owner: 'Maria Lopez', due: '2026-11-24' },
    ],
  },
  {
    name: 'hiring',
    voices: { 'Nancy Green': 'awb', 'Peter White': 'rms' },
    turns: [
      {
        speaker: 'Nancy Green',
        sentences: ['We interviewed four people for the support job this week.', 'The decision is to hire the second candidate.'],
      },
      {
        speaker: 'Peter White',
        sentences: [
          'That is great news.',
          'Nancy will call the candidate with the offer tomorrow.',
          'I am going to prepare the contract by Friday.',
        ],
      },
    ],
    decisions: [{ words: 'hire second candidate' }],
    actions: [
      { words: 'call candidate offer', owner: 'Nancy Green', due: '2026-11-24' },
      { words: 'prepare contract', owner: 'Peter White', due: '2026-11-27' },
    ],
  },
  {
    name: 'server move',
    voices: { 'James Wilson': 'rms', 'Linda Moore': 'kal16' },
    turns: [
      {
        speaker: 'James Wilson',
        sentences: [
          'The old database server is running out of disk space.',
          'We agreed to move the database to the new server next month.',
        ],
      },
      {
        speaker: 'Linda Moore',
        sentences: ['James, could you make a full backup before Wednesday?', 'The network team will update the firewall rules.'],
      },
    ],
    decisions: [{ words: 'move database new server' }],
    actions: [{ words: 'make full backup', owner: 'James Wilson', due: '2026-11-25' }],
  },
  {
    name: 'budget',
    voices: { 'Emma Davis': 'awb', 'Frank Miller': 'rms' },
    turns: [
      {
        speaker: 'Emma Davis',
        sentences: [
          'Can you hear me?',
          'The marketing budget for next year is approved.',
          'Frank needs to share the spending plan by the end of the week.',
        ],
      },
      {
        speaker: 'Frank Miller',
        sentences: ['Sure, no problem.', 'Last year we spent most of the budget on events.'],
      },
    ],
    decisions: [{ words: 'marketing budget approved' }],
    actions: [{ words: 'share spending plan', owner: 'Frank Miller', due: '2026-11-27' }],
  },
  {
    name: 'mobile app',
    voices: { 'Kevin Hall': 'rms', 'Laura King': 'kal16', 'Paul Scott': 'awb' },
    turns: [
      {
        speaker: 'Kevin Hall',
        sentences: ['The mobile app crashes on older phones when it opens the camera.'],
      },
      {
        speaker: 'Laura King',
        sentences: ['We are going with the simple camera screen for this release.', 'Kevin is going to fix the crash next week.'],
      },
      {
        speaker: 'Paul Scott',
        sentences: ['I will test the app on the old phones on Thursday.'],
      },
    ],
    decisions: [{ words: 'simple camera screen release' }],
    actions: [
      { words: 'fix crash', owner: 'Kevin Hall', due: '2026-11-30' },
      { words: 'test app old phones', owner: 'Paul Scott', due: '2026-11-26' },
    ],
  },
  {
    name: 'customer survey',
    voices: { 'Anna Young': 'awb', 'Mark Adams': 'rms' },
    turns: [
      {
        speaker: 'Anna Young',
        sentences: [
          'Most customers said the reports are too slow.',
          'We all agreed that reports come first in the next quarter.',
          'Action item for Mark to write a plan for faster reports by Tuesday.',
        ],
      },
      {
        speaker: 'Mark Adams',
        sentences: ['Okay, I can do that.', 'Some customers also asked for a dark theme.'],
      },
    ],
    decisions: [{ words: 'reports first next quarter' }],
    actions: [{ words: 'write plan faster reports', owner: 'Mark Adams', due: '2026-11-24' }],
  },
  {
    name: 'office move',
    voices: { 'Susan Baker': 'kal16', 'Tom Nelson': 'rms' },
    turns: [
      {
        speaker: 'Susan Baker',
        sentences: ['The lease on the old office ends in March.', 'We have decided to move to the office on Main Street.'],
      },
      {
        speaker: 'Tom Nelson',
        sentences: ['Susan, please order the new desks before Friday.', "I'll tell the rest of the team tomorrow."],
      },
    ],
    decisions: [{ words: 'move office main street' }],
    actions: [
      { words: 'order new desks', owner: 'Susan Baker', due: '2026-11-27' },
      { words: 'tell rest team', owner: 'Tom Nelson', due: '2026-11-24' },
    ],
  },
  {
    name: 'conference',
    voices: { 'Henry Lewis': 'kal16', 'Alice Walker': 'rms' },
    turns: [
      {
        speaker: 'Henry Lewis',
        sentences: [
          'Last week we talked about the conference in Berlin.',
          'The final decision is that we will send two people to the conference.',
        ],
      },
      {
        speaker: 'Alice Walker',
        sentences: ['Henry will book the flights and the hotel by Wednesday.', 'I think the conference will be very useful.'],
      },
    ],
    decisions: [{ words: 'send two people conference' }],
    actions: [{ words: 'book flights hotel', owner: 'Henry Lewis', due: '2026-11-25' }],
  },
  {
    name: 'security review',
    voices: { 'Oliver Hughes': 'rms', 'Nina Ward': 'kal16' },
    turns: [
      {
        speaker: 'Oliver Hughes',
        sentences: [
          'The security review found two problems in the login page.',
          'We will go with the stronger password rules from now on.',
        ],
      },
      {
        speaker: 'Nina Ward',
        sentences: ['Oliver, can you fix the login problems by Thursday?', 'Then I will check the fix on the test server.'],
      },
    ],
    decisions: [{ words: 'stronger password rules' }],
    actions: [
      { words: 'fix login problems', owner: 'Oliver Hughes', due: '2026-11-26' },
      { words: 'check fix test server', owner: 'Nina Ward', due: null },
    ],
  },
  {
    name: 'newsletter',
    voices: { 'Laura King': 'awb', 'Robert Brown': 'rms' },
    turns: [
      {
        speaker: 'Laura King',
        sentences: [
          'The newsletter goes out every month.',
          'Everyone agreed to send the newsletter every two weeks instead.',
          'Robert, can you write the first issue by next Monday?',
        ],
      },
      {
        speaker: 'Robert Brown',
        sentences: ['Yes I can.', 'The design team will choose new colors for it.'],
      },
    ],
    decisions: [{ words: 'send newsletter every two weeks' }],
    actions: [{ words: 'write first issue', owner: 'Robert Brown', due: '2026-11-30' }],
  },
  {
    name: 'training',
    voices: { 'David Clark': 'awb', 'Nancy Davis': 'rms', 'Peter White': 'kal16' },
    turns: [
      {
        speaker: 'David Clark',
        sentences: ['New people need better training in their first month.'],
      },
      {
        speaker: 'Nancy Davis',
        sentences: ["Let's stick with the video course and add a weekly question hour."],
      },
      {
        speaker: 'Peter White',
        sentences: ['Nancy will record the first video by Friday.', 'David, could you plan the question hour for next week?'],
      },
    ],
    decisions: [{ words: 'video course weekly question hour' }],
    actions: [
      { words: 'record first video', owner: 'Nancy Davis', due: '2026-11-27' },
      { words: 'plan question hour', owner: 'David Clark', due: '2026-11-30' },
    ],
  },
];
