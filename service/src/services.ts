import { recordingsDir } from './recordings/recordings-dir';
import type { Config } from './config';
import { transactionOf, type Db } from './db/connection';
import { DashboardRepo, SignInFailuresRepo } from './dashboard/dashboard.repo';
import { DashboardService } from './dashboard/dashboard.service';
import { SignInAttempts } from './dashboard/sign-in-attempts';
import { InvitesRepo } from './dashboard/invites.repo';
import { TeamService } from './dashboard/team.service';
import { EventsRepo } from './events/events.repo';
import { EventsService } from './events/events.service';
import { IdempotencyRepo } from './idempotency/idempotency.repo';
import { JobQueue, JobWorker, type JobHandler } from './jobs/job.worker';
import { JobsRepo } from './jobs/jobs.repo';
import { IdempotencyService } from './idempotency/idempotency.service';
import { IdentityRepo } from './identity/identity.repo';
import { IdentityService } from './identity/identity.service';
import { KeysRepo } from './keys/keys.repo';
import { KeysService } from './keys/keys.service';
import { MeetingsRepo } from './meetings/meetings.repo';
import { MeetingsService } from './meetings/meetings.service';
import { ParticipantsRepo } from './participants/participants.repo';
import { ParticipantsService } from './participants/participants.service';
import { RecordingsRepo } from './recordings/recordings.repo';
import { RecordingsService } from './recordings/recordings.service';
import type { Clock } from './shared/clock';
import { IdGenerator } from './shared/ids';
import { createLogger, type Logger } from './shared/logger';
import { SecretBox } from './shared/secret-box';
import { SignedTokens } from './shared/signed-tokens';
import { RoomLinks } from './rooms/room-links';
import { HostLinkHoldersRepo } from './rooms/host-link-holders.repo';
import { ChatRepo } from './rooms/chat.repo';
import { RemovalsRepo } from './rooms/removals.repo';
import { RoomsService } from './rooms/rooms.service';
import { RoomAccess } from './rooms/room-access';
import { RoomChat } from './rooms/room-chat';
import { RoomRecordings } from './rooms/room-recordings';
import { pocketsphinxCaptions } from './captions/live-captions';
import { createRoomExtras, type RoomExtras } from './services.rooms';
import { EmbedRepo } from './embed/embed.repo';
import { EmbedService } from './embed/embed.service';
import { EmbedTokens } from './rooms/embed-tokens';
import { LlmClient } from './llm/llm.client';
import { AskService } from './search/ask.service';
import { SearchRepo } from './search/search.repo';
import { SearchService } from './search/search.service';
import type { Transaction } from './shared/transaction';
import { SummariesRepo } from './summaries/summaries.repo';
import { SummariesService } from './summaries/summaries.service';
import { TranscriptsRepo } from './transcripts/transcripts.repo';
import { TranscriptsService } from './transcripts/transcripts.service';
import { TranscribeJob, TranscriptionTrigger } from './transcripts/transcribe.job';
import { RenderCompositeJob } from './recordings/composite/composite.job';
import { TranscriptionService } from './transcripts/transcription.service';
import type { SpeechToText } from './transcripts/speech-to-text';
import { OpenAiSpeechToText } from './transcripts/openai-stt';
import { PocketsphinxSpeechToText } from './transcripts/pocketsphinx';
import { SummarizeJob } from './summaries/summarize.job';
import { Summarizer } from './summaries/summarizer';
import { ChatTarget } from './integrations/chat.target';
import type { ProjectDatabase } from './project/project.database';
import { ProjectTarget } from './integrations/project.target';
import { IntegrationsRepo } from './integrations/integrations.repo';
import { IntegrationsService } from './integrations/integrations.service';
import { SlackOAuthRepo } from './integrations/slack-oauth.repo';
import { SLACK_OAUTH_CALLBACK_PATH, SlackOAuthService } from './integrations/slack-oauth.service';
import { DeliveriesRepo } from './outbox/deliveries.repo';
import { DeliveryWorker } from './outbox/delivery.worker';
import { httpSender, type Sender } from './outbox/http-sender';
import { WebhookEndpointsRepo } from './webhooks/webhook-endpoints.repo';
import { WebhookTarget } from './webhooks/webhook.target';
import { WebhooksService } from './webhooks/webhooks.service';
import { RegistrationsRepo } from './webinars/webinar-registrations.repo';
import { RegistrationsService } from './webinars/webinar-registrations.service';

export { recordingsDir };

/** Every repo and service of the domain, wired to one database and clock. */
export interface Services extends Pick<RoomExtras, 'polls' | 'breakouts'> {
  db: Db;
  clock: Clock;
  ids: IdGenerator;
  transaction: Transaction;
  secrets: SecretBox;
  tokens: SignedTokens;
  roomLinks: RoomLinks;
  rooms: RoomsService;
  roomAccess: RoomAccess;
  embed: EmbedService;
  search: SearchService;
  ask: AskService;
  keys: KeysService;
  identity: IdentityService;
  events: EventsService;
  meetings: MeetingsService;
  participants: ParticipantsService;
  recordings: RecordingsService;
  transcripts: TranscriptsService;
  summaries: SummariesService;
  transcription: TranscriptionService;
  registrations: RegistrationsService;
  idempotency: IdempotencyService;
  jobs: JobQueue;
  jobsRepo: JobsRepo;
  webhooks: WebhooksService;
  deliveries: DeliveriesRepo;
  webhookEndpoints: WebhookEndpointsRepo;
  integrations: IntegrationsService;
  integrationsRepo: IntegrationsRepo;
  /** "Add to Slack", when the operator configured a Slack app. */
  slackOAuth: SlackOAuthService | undefined;
  dashboard: DashboardService;
  /** Teammates: invitations, roles, removal. */
  team: TeamService;
}

/** Builds the domain layer on a migrated database. */
export function createServices(
  db: Db,
  config: Pick<
    Config,
    | 'baseUrl'
    | 'allowInsecureWebhooks'
    | 'dataDir'
    | 'webhooks'
    | 'rooms'
    | 'recordingUrlTtlSeconds'
    | 'dashboard'
    | 'llm'
    | 'slackApiUrl'
    | 'slackOAuth'
    | 'transcription'
  >,
  clock: Clock,
  masterKey: Buffer,
  logger: Logger = createLogger('silent'),
): Services {
  const secrets = new SecretBox(masterKey);
  const tokens = new SignedTokens(masterKey);
  const ids = new IdGenerator(() => clock.now());
  const transaction = transactionOf(db);
  const identityRepo = new IdentityRepo(db);
  const identity = new IdentityService(identityRepo, ids, clock);
  const dashboardRepo = new DashboardRepo(db);
  const signInAttempts = new SignInAttempts(new SignInFailuresRepo(db), clock);
  const events = new EventsService(new EventsRepo(db), ids, clock);
  const meetings = new MeetingsService({
    repo: new MeetingsRepo(db),
    identity,
    events,
    transaction,
    ids,
    clock,
    baseUrl: config.baseUrl,
  });
  const roomLinks = new RoomLinks(tokens, meetings, new HostLinkHoldersRepo(db), clock, config.baseUrl);
  const embedTokens = new EmbedTokens(tokens, clock);
  const deliveries = new DeliveriesRepo(db);
  const jobsRepo = new JobsRepo(db);
  const jobs = new JobQueue(jobsRepo, ids, clock);
  const webhookEndpoints = new WebhookEndpointsRepo(db);
  const webhooks = new WebhooksService({
    endpoints: webhookEndpoints,
    deliveries,
    identity,
    secrets,
    transaction,
    ids,
    clock,
    allowInsecureUrls: config.allowInsecureWebhooks,
    maxEndpointsPerOrganization: config.webhooks.endpointsPerOrganization,
  });
  const integrationsRepo = new IntegrationsRepo(db);
  const integrations = new IntegrationsService({
    repo: integrationsRepo,
    deliveries,
    secrets,
    transaction,
    ids,
    clock,
    allowInsecureUrls: config.allowInsecureWebhooks,
  });
  const transcriptionTrigger = new TranscriptionTrigger(meetings, jobs);
  for (const subscriber of [webhooks, integrations, transcriptionTrigger]) events.subscribe(subscriber);
  const search = new SearchService(new SearchRepo(db), meetings);
  const participants = new ParticipantsService(new ParticipantsRepo(db), meetings, ids, clock);
  const registrations = new RegistrationsService({
    repo: new RegistrationsRepo(db),
    meetings,
    links: roomLinks,
    events,
    transaction,
    ids,
    clock,
  });
  const recordings = new RecordingsService({
    repo: new RecordingsRepo(db),
    meetings,
    events,
    transaction,
    ids,
    clock,
    baseUrl: config.baseUrl,
    recordingsDir: recordingsDir(config.dataDir),
    tokens,
    downloadUrlTtlMs: config.recordingUrlTtlSeconds * 1000,
    jobs,
    logger,
    onTracksReady: (tracks) => transcriptionTrigger.tracksReady(tracks),
  });
  const extras = createRoomExtras(db, { meetings, transaction, ids, clock, baseUrl: config.baseUrl });
  const rooms = new RoomsService({
    meetings,
    participants,
    removals: new RemovalsRepo(db),
    transaction,
    ids,
    clock,
    settings: config.rooms,
    logger,
    chat: new RoomChat({ repo: new ChatRepo(db), meetings, search, transaction, ids, clock }),
    recordings: new RoomRecordings(recordings, logger),
    polls: extras.roomPolls,
    breakouts: extras.breakouts,
  });
  rooms.useCaptions(pocketsphinxCaptions(config.transcription.pocketsphinxModelDir, clock, logger));
  const roomAccess = new RoomAccess({
    meetings,
    links: roomLinks,
    findRegistrant: (meetingId, registrationId) => registrations.findForWebinar(meetingId, registrationId),
    embedTokens,
    tokens,
    clock,
    settings: config.rooms,
    isLockedFor: (meetingId, identity) => rooms.lockedFor(meetingId, identity),
  });
  return {
    db,
    clock,
    ids,
    transaction,
    secrets,
    tokens,
    roomLinks,
    rooms,
    roomAccess,
    polls: extras.polls,
    breakouts: extras.breakouts,
    embed: new EmbedService(new EmbedRepo(db), meetings, embedTokens, clock, config.baseUrl),
    search,
    ask: new AskService(search, config.llm && new LlmClient(config.llm), logger),
    keys: new KeysService(new KeysRepo(db), ids, clock),
    identity,
    events,
    meetings,
    participants,
    recordings,
    transcription: new TranscriptionService(meetings, recordings, jobs),
    transcripts: new TranscriptsService({ repo: new TranscriptsRepo(db), meetings, events, search, transaction, clock }),
    summaries: new SummariesService(new SummariesRepo(db), meetings, events, transaction, clock),
    registrations,
    idempotency: new IdempotencyService(transaction, new IdempotencyRepo(db), clock),
    jobs,
    jobsRepo,
    webhooks,
    deliveries,
    webhookEndpoints,
    integrations,
    integrationsRepo,
    slackOAuth:
      config.slackOAuth &&
      new SlackOAuthService({
        repo: new SlackOAuthRepo(db),
        integrations,
        tokens,
        transaction,
        clock,
        settings: {
          ...config.slackOAuth,
          apiUrl: config.slackApiUrl,
          redirectUri: `${config.baseUrl}${SLACK_OAUTH_CALLBACK_PATH}`,
          timeoutMs: config.webhooks.timeoutMs,
        },
        logger,
      }),
    dashboard: new DashboardService({
      repo: dashboardRepo,
      identity,
      tokens,
      attempts: signInAttempts,
      transaction,
      ids,
      clock,
      settings: { baseUrl: config.baseUrl, sessionTtlMs: config.dashboard.sessionTtlMs },
    }),
    team: new TeamService({
      users: identityRepo,
      invites: new InvitesRepo(db),
      dashboard: dashboardRepo,
      attempts: signInAttempts,
      transaction,
      ids,
      clock,
      settings: { baseUrl: config.baseUrl },
    }),
  };
}

/** The Slack and Teams target of the outbox, also the dashboard's "send a test message". */
export function createChatTarget(
  services: Pick<Services, 'integrationsRepo' | 'secrets'>,
  config: Pick<Config, 'webhooks' | 'allowInsecureWebhooks' | 'baseUrl' | 'slackApiUrl'>,
  logger: Logger,
  send: Sender = httpSender({
    timeoutMs: config.webhooks.timeoutMs,
    connectTimeoutMs: config.webhooks.connectTimeoutMs,
    allowPrivateTargets: config.allowInsecureWebhooks,
  }),
): ChatTarget {
  return new ChatTarget(services.integrationsRepo, services.secrets, {
    baseUrl: config.baseUrl,
    slackApiUrl: config.slackApiUrl,
    timeoutMs: config.webhooks.timeoutMs,
    send,
    logger,
  });
}

/** The outbox's delivery worker (webhooks, Slack, Teams) of a set of services, woken whenever an event is written. */
export function createDeliveryWorker(
  services: Services,
  config: Pick<Config, 'webhooks' | 'allowInsecureWebhooks' | 'baseUrl' | 'slackApiUrl'>,
  logger: Logger,
  opts: { send?: Sender; random?: () => number; project?: ProjectDatabase } = {},
): DeliveryWorker {
  const send =
    opts.send ??
    httpSender({
      timeoutMs: config.webhooks.timeoutMs,
      connectTimeoutMs: config.webhooks.connectTimeoutMs,
      allowPrivateTargets: config.allowInsecureWebhooks,
    });
  const chat = createChatTarget(services, config, logger, send);
  const worker = new DeliveryWorker({
    deliveries: services.deliveries,
    targets: {
      webhook: new WebhookTarget(services.webhookEndpoints, services.secrets, send),
      slack: chat,
      teams: chat,
      project: new ProjectTarget(services.integrationsRepo, opts.project),
    },
    transaction: services.transaction,
    ids: services.ids,
    clock: services.clock,
    settings: config.webhooks,
    logger,
    random: opts.random,
  });
  services.events.onEmitted(() => worker.wake());
  return worker;
}

/** The handlers of the media jobs: `transcribe` (pocketsphinx, or the configured endpoint), `summarize` (extractive, or the configured LLM) and `render_composite` (the recording's MP4). */
export function mediaJobHandlers(services: Services, config: Pick<Config, 'transcription' | 'llm'>, logger: Logger): JobHandler[] {
  const { stt, pocketsphinxModelDir } = config.transcription;
  const engine: SpeechToText = stt ? new OpenAiSpeechToText(stt) : new PocketsphinxSpeechToText(pocketsphinxModelDir);
  const { recordings, transcripts, jobs, transaction, meetings, participants, summaries } = services;
  return [
    new TranscribeJob({ recordings, transcripts, jobs, transaction, engine, logger }),
    new RenderCompositeJob({ recordings, logger }),
    new SummarizeJob({
      meetings,
      participants,
      transcripts,
      summaries,
      summarizer: new Summarizer(config.llm && new LlmClient(config.llm), logger),
      logger,
    }),
  ];
}

/** The durable job worker of a set of services with a handler per job kind, woken whenever a job is queued. */
export function createJobWorker(
  services: Services,
  handlers: JobHandler[],
  logger: Logger,
  opts: { concurrency?: number } = {},
): JobWorker {
  const worker = new JobWorker({
    jobs: services.jobsRepo,
    handlers,
    transaction: services.transaction,
    clock: services.clock,
    logger,
    concurrency: opts.concurrency,
  });
  services.jobs.onEnqueued(() => worker.wake());
  return worker;
}
