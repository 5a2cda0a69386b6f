import { ConfigError, loadConfig, mediaNodeConfig } from './config';

const SECRET = 's'.repeat(32);

describe('media node settings', () => {
  it('without SVC_REDIS_URL the service has no nodes (the embedded default)', () => {
    expect(loadConfig({}).nodes).toEqual({ redisUrl: undefined, secret: undefined });
  });

  it('SVC_REDIS_URL needs SVC_NODE_SECRET of at least 32 characters, and a redis URL', () => {
    expect(() => loadConfig({ SVC_REDIS_URL: 'redis://127.0.0.1:6379' })).toThrow(/SVC_REDIS_URL needs SVC_NODE_SECRET/);
    expect(() => loadConfig({ SVC_REDIS_URL: 'redis://127.0.0.1:6379', SVC_NODE_SECRET: 'short' })).toThrow(/at least 32 characters/);
    expect(() => loadConfig({ SVC_REDIS_URL: 'http://127.0.0.1:6379', SVC_NODE_SECRET: SECRET })).toThrow(ConfigError);
    expect(loadConfig({ SVC_REDIS_URL: 'redis://127.0.0.1:6379', SVC_NODE_SECRET: SECRET, SVC_RTC_WORKERS: '0' }).nodes).toEqual({
      redisUrl: 'redis://127.0.0.1:6379',
      secret: SECRET,
    });
  });

  it('a media node needs Redis, the secret and workers; its id, control port and cap have defaults', () => {
    expect(() => mediaNodeConfig({ SVC_NODE_SECRET: SECRET })).toThrow(/set SVC_REDIS_URL/);
    expect(() => mediaNodeConfig({ SVC_REDIS_URL: 'redis://r:6379' })).toThrow(/svc media-node needs SVC_NODE_SECRET/);
    const base = { SVC_REDIS_URL: 'redis://r:6379', SVC_NODE_SECRET: SECRET };
    expect(() => mediaNodeConfig({ ...base, SVC_RTC_WORKERS: '0' })).toThrow(/SVC_RTC_WORKERS must be at least 1/);
    expect(() => mediaNodeConfig({ ...base, SVC_NODE_MAX_PEERS: '0' })).toThrow(/SVC_NODE_MAX_PEERS/);
    expect(() => mediaNodeConfig({ ...base, SVC_NODE_ID: 'a b' })).toThrow(/SVC_NODE_ID/);
    const config = mediaNodeConfig({ ...base, SVC_RTC_WORKERS: '2', SVC_NODE_MAX_PEERS: '50', SVC_NODE_ID: 'media-1' });
    expect(config).toMatchObject({ id: 'media-1', port: 7710, listenIp: '0.0.0.0', maxPeers: 50, address: undefined });
    expect(config.rtc.workers).toBe(2);
    expect(mediaNodeConfig(base).maxPeers).toBeNull();
  });
});
