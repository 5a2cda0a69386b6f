import type { Config } from './config';
import type { Db } from './db/connection';
import { IdempotencyRepo } from './idempotency/idempotency.repo';
import { IdempotencyService } from './idempotency/idempotency.service';
import { IdentityRepo } from './identity/identity.repo';
import { IdentityService } from './identity/identity.service';
import { KeysRepo } from './keys/keys.repo';
import { KeysService } from './keys/keys.service';
import { MeetingsRepo } from './meetings/meetings.repo';
import { MeetingsService } from './meetings/meetings.service';
import { ParticipantsRepo } from './participants/participants.repo';
import { RecordingsRepo } from './recordings/recordings.repo';
import type { Clock } from './shared/clock';
import { IdGenerator } from './shared/ids';
import { SummariesRepo } from './summaries/summaries.repo';
import { TranscriptsRepo } from './transcripts/transcripts.repo';
import { RegistrationsRepo } from './webinars/registrations.repo';
import { RegistrationsService } from './webinars/registrations.service';

/** Every repo and service of the domain, wired to one database and clock. */
export interface Services {
  db: Db;
  clock: Clock;
  ids: IdGenerator;
  keys: KeysService;
  identity: IdentityService;
  meetings: MeetingsService;
  participants: ParticipantsRepo;
  recordings: RecordingsRepo;
  transcripts: TranscriptsRepo;
  summaries: SummariesRepo;
  registrations: RegistrationsService;
  idempotency: IdempotencyService;
}

/** Builds the domain layer on a migrated database. */
export function createServices(db: Db, config: Pick<Config, 'baseUrl'>, clock: Clock): Services {
  const ids = new IdGenerator(() => clock.now());
  const identity = new IdentityService(new IdentityRepo(db), ids, clock);
  const meetings = new MeetingsService(new MeetingsRepo(db), identity, ids, clock, config.baseUrl);
  return {
    db,
    clock,
    ids,
    keys: new KeysService(new KeysRepo(db), ids, clock),
    identity,
    meetings,
    participants: new ParticipantsRepo(db),
    recordings: new RecordingsRepo(db),
    transcripts: new TranscriptsRepo(db),
    summaries: new SummariesRepo(db),
    registrations: new RegistrationsService(new RegistrationsRepo(db), meetings, ids, clock),
    idempotency: new IdempotencyService(db, new IdempotencyRepo(db), clock),
  };
}
