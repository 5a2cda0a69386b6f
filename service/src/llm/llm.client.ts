import type { LlmSettings } from '../config';
import { AppError } from '../shared/errors';

/** One message of a chat completion request. */
export interface LlmMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** Longest answer read from the endpoint, so a misbehaving one cannot fill memory. */
const MAX_RESPONSE_BYTES = 1_000_000;

/** The client of the configured LLM endpoint: one chat completion per call, deterministic (temperature 0). */
export class LlmClient {
  constructor(private readonly settings: LlmSettings) {}

  /** The model's answer to `messages`; throws an AppError when the endpoint fails, times out or answers something unusable. */
  async complete(messages: LlmMessage[], maxTokens = 600): Promise<string> {
    const headers: Record<string, string> = { 'Content-Type': 'application/json', Accept: 'application/json' };
    if (this.settings.apiKey) headers.Authorization = `Bearer ${this.settings.apiKey}`;
    let res: Response;
    try {
      res = await fetch(`${this.settings.url}/chat/completions`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ model: this.settings.model, messages, temperature: 0, max_tokens: maxTokens }),
        signal: AbortSignal.timeout(this.settings.timeoutMs),
      });
    } catch (err) {
      throw new AppError('internal_error', `The LLM endpoint could not be reached: ${(err as Error).message}`);
    }
    const text = await res.text();
    if (!res.ok) throw new AppError('internal_error', `The LLM endpoint answered ${res.status}`);
    if (text.length > MAX_RESPONSE_BYTES) throw new AppError('internal_error', 'The LLM endpoint answered too much');
    const content = parseContent(text);
    if (content === undefined) throw new AppError('internal_error', 'The LLM endpoint answered without choices[0].message.content');
    return content;
  }
}

function parseContent(body: string): string | undefined {
  try {
    const content = (JSON.parse(body) as { choices?: { message?: { content?: unknown } }[] }).choices?.[0]?.message?.content;
    return typeof content === 'string' ? content : undefined;
  } catch {
    return undefined;
  }
}
