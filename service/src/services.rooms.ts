import { BreakoutsRepo } from './breakouts/breakouts.repo';
import { BreakoutsService } from './breakouts/breakouts.service';
import type { Db } from './db/connection';
import { JobsRepo } from './jobs/jobs.repo';
import type { MeetingsService } from './meetings/meetings.service';
import { PollsRepo } from './polls/polls.repo';
import { PollsService } from './polls/polls.service';
import { RecordingsRepo } from './recordings/recordings.repo';
import { RoomPolls } from './rooms/room-polls';
import type { Clock } from './shared/clock';
import type { IdGenerator } from './shared/ids';
import type { Transaction } from './shared/transaction';
import { TranscriptsRepo } from './transcripts/transcripts.repo';

/** What the rooms' polls and breakout rooms are built from. */
export interface RoomExtrasDeps {
  meetings: MeetingsService;
  transaction: Transaction;
  ids: IdGenerator;
  clock: Clock;
  /** {base_url}, for the links breakout rooms give to their transcripts. */
  baseUrl: string;
}

/** The rooms' polls and breakout rooms (a part of createServices, kept apart so services.ts stays short). */
export interface RoomExtras {
  polls: PollsService;
  roomPolls: RoomPolls;
  breakouts: BreakoutsService;
}

/** Builds the polls and breakout rooms services on the database. */
export function createRoomExtras(db: Db, deps: RoomExtrasDeps): RoomExtras {
  const polls = new PollsService({ repo: new PollsRepo(db), ...deps });
  const produced = { recordings: new RecordingsRepo(db), transcripts: new TranscriptsRepo(db), jobs: new JobsRepo(db) };
  const breakouts = new BreakoutsService({ repo: new BreakoutsRepo(db), produced, ...deps });
  return { polls, roomPolls: new RoomPolls(polls, deps.clock), breakouts };
}
