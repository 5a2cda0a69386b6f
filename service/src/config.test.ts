import os from 'node:os';
import path from 'node:path';
import { ConfigError, insecureBaseUrlWarning, loadConfig } from './config';

describe('loadConfig', () => {
  it('has the documented defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 8080,
      host: '0.0.0.0',
      baseUrl: 'http://localhost:8080',
      dataDir: path.resolve('./data'),
      databasePath: path.resolve('./data/svc.sqlite'),
      logLevel: 'info',
      rateLimit: { perSecond: 20, perMinute: 120 },
      allowInsecureWebhooks: false,
      trustProxy: false,
      masterKey: undefined,
      webhooks: {
        concurrency: 64,
        perEndpointConcurrency: 8,
        perOrganizationConcurrency: 56,
        endpointsPerOrganization: 100,
        timeoutMs: 15_000,
        connectTimeoutMs: 5_000,
      },
      slackApiUrl: 'https://slack.com/api/',
      rtc: { workers: os.availableParallelism(), minPort: 40_000, maxPort: 40_099, listenIp: '0.0.0.0', announcedIp: undefined },
      rooms: { emptyGraceSeconds: 300, turnUrls: [], turnSecret: undefined, pageRateLimit: { perSecond: 20, perMinute: 600 } },
      llm: undefined,
    });
  });

  it('reads the LLM endpoint, its key, model and timeout', () => {
    const config = loadConfig({
      SVC_LLM_URL: 'https://llm.example.com/v1/',
      SVC_LLM_API_KEY: 'sk-test',
      SVC_LLM_MODEL: 'small-model',
      SVC_LLM_TIMEOUT_MS: '5000',
    });
    expect(config.llm).toEqual({ url: 'https://llm.example.com/v1', apiKey: 'sk-test', model: 'small-model', timeoutMs: 5000 });
    expect(loadConfig({ SVC_LLM_URL: 'http://127.0.0.1:11434/v1', SVC_LLM_MODEL: 'm' }).llm).toMatchObject({
      apiKey: undefined,
      timeoutMs: 30_000,
    });
  });

  it('reads the transcription settings: pocketsphinx and one job at a time unless told otherwise', () => {
    expect(loadConfig({}).transcription).toEqual({
      stt: undefined,
      pocketsphinxModelDir: '/usr/share/pocketsphinx/model/en-us',
      jobConcurrency: 1,
    });
    const config = loadConfig({ SVC_STT_URL: 'http://127.0.0.1:8000/v1/', SVC_STT_API_KEY: 'k', SVC_JOB_CONCURRENCY: '2' });
    expect(config.transcription).toMatchObject({
      stt: { url: 'http://127.0.0.1:8000/v1', apiKey: 'k', model: 'whisper-1', timeoutMs: 600_000 },
      jobConcurrency: 2,
    });
  });

  it('reads the media and room settings', () => {
    const config = loadConfig({
      SVC_RTC_WORKERS: '3',
      SVC_RTC_MIN_PORT: '50000',
      SVC_RTC_MAX_PORT: '50002',
      SVC_RTC_LISTEN_IP: '10.0.0.5',
      SVC_RTC_ANNOUNCED_IP: 'meet.example.com',
      SVC_ROOM_EMPTY_GRACE_SECONDS: '0',
      SVC_TURN_URLS: 'turn:turn.example.com:3478?transport=udp, turns:turn.example.com:443?transport=tcp',
      SVC_TURN_SECRET: 's3cret',
    });
    expect(config.rtc).toEqual({ workers: 3, minPort: 50_000, maxPort: 50_002, listenIp: '10.0.0.5', announcedIp: 'meet.example.com' });
    expect(config.rooms).toMatchObject({
      emptyGraceSeconds: 0,
      turnUrls: ['turn:turn.example.com:3478?transport=udp', 'turns:turn.example.com:443?transport=tcp'],
      turnSecret: 's3cret',
    });
  });

  it('reads every variable, and derives the base URL from PORT', () => {
    expect(loadConfig({ PORT: '9000' }).baseUrl).toBe('http://localhost:9000');
    const config = loadConfig({
      PORT: '0',
      SVC_BASE_URL: 'https://meet.example.com/',
      SVC_DATA_DIR: '/var/lib/svc',
      SVC_LOG_LEVEL: 'warn',
      SVC_RATE_LIMIT_PER_SECOND: '50',
      SVC_RATE_LIMIT_PER_MINUTE: '600',
      SVC_ALLOW_INSECURE_WEBHOOKS: 'true',
      SVC_TRUST_PROXY: '1',
      SVC_WEBHOOK_TIMEOUT_MS: '5000',
    });
    expect(config).toMatchObject({
      port: 0,
      baseUrl: 'https://meet.example.com',
      databasePath: '/var/lib/svc/svc.sqlite',
      logLevel: 'warn',
      rateLimit: { perSecond: 50, perMinute: 600 },
      allowInsecureWebhooks: true,
      trustProxy: true,
      webhooks: { concurrency: 64, perEndpointConcurrency: 8, timeoutMs: 5000 },
    });
  });

  it.each([
    [{ PORT: 'eighty' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ SVC_BASE_URL: 'meet.example.com' }, 'SVC_BASE_URL'],
    [{ SVC_LOG_LEVEL: 'loud' }, 'SVC_LOG_LEVEL'],
    [{ SVC_RATE_LIMIT_PER_SECOND: '0' }, 'SVC_RATE_LIMIT_PER_SECOND'],
    [{ SVC_ALLOW_INSECURE_WEBHOOKS: 'yes' }, 'SVC_ALLOW_INSECURE_WEBHOOKS'],
    [{ SVC_WEBHOOK_TIMEOUT_MS: '10' }, 'SVC_WEBHOOK_TIMEOUT_MS'],
    [{ SVC_RTC_MIN_PORT: '40100', SVC_RTC_MAX_PORT: '40000' }, 'SVC_RTC_MAX_PORT'],
    [{ SVC_RTC_WORKERS: '4', SVC_RTC_MIN_PORT: '40000', SVC_RTC_MAX_PORT: '40002' }, 'SVC_RTC_MIN_PORT'],
    [{ SVC_RTC_LISTEN_IP: 'example.com' }, 'SVC_RTC_LISTEN_IP'],
    [{ SVC_RTC_ANNOUNCED_IP: '1.2.3.4; rm -rf' }, 'SVC_RTC_ANNOUNCED_IP'],
    [{ SVC_TURN_URLS: 'http://turn.example.com' }, 'SVC_TURN_URLS'],
    [{ SVC_ROOM_EMPTY_GRACE_SECONDS: '-1' }, 'SVC_ROOM_EMPTY_GRACE_SECONDS'],
    [{ SVC_LLM_URL: 'llm.example.com' }, 'SVC_LLM_URL'],
    [{ SVC_STT_URL: 'whisper.local' }, 'SVC_STT_URL'],
    [{ SVC_JOB_CONCURRENCY: '0' }, 'SVC_JOB_CONCURRENCY'],
    [{ SVC_LLM_URL: 'https://llm.example.com/v1' }, 'SVC_LLM_MODEL'],
    [{ SVC_LLM_URL: 'https://llm.example.com/v1', SVC_LLM_MODEL: 'm', SVC_LLM_TIMEOUT_MS: '10' }, 'SVC_LLM_TIMEOUT_MS'],
  ])('refuses %j with a message naming %s', (env, name) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(name);
  });
});

describe('insecureBaseUrlWarning', () => {
  it('warns about plain http on a host name that is not loopback, where browsers refuse the camera and calls', () => {
    const warning = insecureBaseUrlWarning('http://meet.example.com:8080');
    expect(warning).toContain('SVC_BASE_URL http://meet.example.com:8080 is plain http');
    expect(warning).toContain('SVC_BASE_URL=https://meet.example.com:8080');
    expect(insecureBaseUrlWarning('http://10.0.0.5')).toBeDefined();
  });

  it('is quiet for https and for loopback hosts, which browsers treat as secure', () => {
    for (const url of [
      'https://meet.example.com',
      'http://localhost:8080',
      'http://127.0.0.1:9',
      'http://app.localhost',
      'http://[::1]:80',
    ]) {
      expect(insecureBaseUrlWarning(url)).toBeUndefined();
    }
  });
});

describe('TLS settings', () => {
  it('is off by default; acme needs an https base URL on a host name, files needs both files', () => {
    expect(loadConfig({}).tls).toMatchObject({ mode: 'off', httpsPort: 443, httpPort: 80 });
    expect(loadConfig({ SVC_TLS: 'acme', SVC_BASE_URL: 'https://meet.example.com' }).tls).toMatchObject({
      mode: 'acme',
      acme: { directoryUrl: 'https://acme-v02.api.letsencrypt.org/directory' },
    });
    expect(() => loadConfig({ SVC_TLS: 'acme' })).toThrow(/SVC_BASE_URL=https:\/\/meet.example.com/);
    expect(() => loadConfig({ SVC_TLS: 'acme', SVC_BASE_URL: 'http://meet.example.com' })).toThrow(/must be https/);
    expect(() => loadConfig({ SVC_TLS: 'acme', SVC_BASE_URL: 'https://203.0.113.7' })).toThrow(/public host name/);
    expect(() => loadConfig({ SVC_TLS: 'files', SVC_TLS_CERT_FILE: '/etc/c.pem' })).toThrow(/SVC_TLS_KEY_FILE/);
    expect(loadConfig({ SVC_TLS: 'files', SVC_TLS_CERT_FILE: 'c.pem', SVC_TLS_KEY_FILE: 'k.pem' }).baseUrl).toBe('https://localhost');
    expect(() => loadConfig({ SVC_TLS: 'on' })).toThrow(/SVC_TLS must be off, acme or files/);
    expect(() => loadConfig({ SVC_TLS: 'acme', SVC_BASE_URL: 'https://a.example', SVC_ACME_DIRECTORY_URL: 'http://ca' })).toThrow(
      /SVC_ACME_DIRECTORY_URL must be an https URL/,
    );
  });
});
