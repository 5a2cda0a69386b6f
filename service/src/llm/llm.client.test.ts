import { startFakeLlm, type FakeLlm } from '../testing/fake-llm';
import { AppError } from '../shared/errors';
import { LlmClient } from './llm.client';

describe('LlmClient against a local OpenAI-compatible endpoint', () => {
  let fake: FakeLlm;
  beforeAll(async () => {
    fake = await startFakeLlm({ apiKey: 'sk-test' });
  });
  afterAll(() => fake.close());
  afterEach(() => {
    expect(fake.problems).toEqual([]);
    fake.requests.length = 0;
  });
  const client = (overrides: Partial<ConstructorParameters<typeof LlmClient>[0]> = {}) =>
    new LlmClient({ url: fake.url, apiKey: 'sk-test', model: 'test-model', timeoutMs: 5_000, ...overrides });

  it('posts the messages to {url}/chat/completions with the key and model at temperature 0, and returns the content', async () => {
    fake.reply = () => ({ content: 'Hello [1].' });
    const messages = [
      { role: 'system' as const, content: 'Be brief.' },
      { role: 'user' as const, content: 'Hi' },
    ];
    await expect(client().complete(messages)).resolves.toBe('Hello [1].');
    expect(fake.requests).toEqual([{ authorization: 'Bearer sk-test', model: 'test-model', messages, temperature: 0 }]);
  });

  it('fails with an AppError on an HTTP error, a wrong key, an unusable body or a timeout', async () => {
    const message = [{ role: 'user' as const, content: 'Hi' }];
    fake.reply = () => ({ status: 503 });
    await expect(client().complete(message)).rejects.toThrow('The LLM endpoint answered 503');
    fake.reply = () => ({ raw: '{"choices": []}' });
    await expect(client().complete(message)).rejects.toThrow(/without choices\[0\]\.message\.content/);
    fake.reply = () => ({ raw: 'not json' });
    await expect(client().complete(message)).rejects.toBeInstanceOf(AppError);
    fake.reply = () => ({ hang: true });
    await expect(client({ timeoutMs: 200 }).complete(message)).rejects.toThrow(/could not be reached/);
    fake.reply = () => ({ content: 'unused' });
    await expect(client({ apiKey: undefined }).complete(message)).rejects.toThrow('answered 401');
    expect(fake.problems).toEqual(['authorization undefined']);
    fake.problems.length = 0;
  });
});
