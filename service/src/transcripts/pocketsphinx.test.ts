import http from 'node:http';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { OpenAiSpeechToText, parseVerboseJson } from './openai-stt';
import { parsePocketsphinxOutput } from './pocketsphinx';

// What pocketsphinx_continuous -time yes printed for flite speech of "Good morning everyone. We decided ...".
const OUTPUT = `good morning everyone we decided to ship the release
<s> 0.110 0.180 0.999100
good 0.190 0.440 0.999100
morning 0.450 0.950 0.999100
everyone 0.960 1.640 0.999200
<sil> 1.650 1.670 0.671833
we 1.680 1.880 0.957619
decided 1.890 2.460 0.999200
[NOISE] 2.470 2.500 0.5
on(2) 3.600 3.730 0.759168
friday 5.740 6.220 0.998900
</s> 6.230 6.300 1.000000
alice will write the notes
<s> 7.000 7.100 1.000000
alice 7.110 7.500 0.9
will(2) 7.510 7.700 0.023220
write 7.710 8.000 0.070962
</s> 8.010 8.100 1.000000
`;

describe('parsePocketsphinxOutput', () => {
  it('makes a segment per utterance with its word times, dropping markers, fillers and pronunciation variants, and splits at long pauses', () => {
    expect(parsePocketsphinxOutput(OUTPUT, 'Ada', 'par_ada')).toEqual([
      { start: 0.19, end: 3.73, speaker: 'Ada', participant_id: 'par_ada', text: 'good morning everyone we decided on' },
      { start: 5.74, end: 6.22, speaker: 'Ada', participant_id: 'par_ada', text: 'friday' },
      { start: 7.11, end: 8, speaker: 'Ada', participant_id: 'par_ada', text: 'alice will write' },
    ]);
  });

  it('keeps speaker null when the track has no known speaker, and finds nothing in empty output', () => {
    expect(parsePocketsphinxOutput(OUTPUT)[0]).toMatchObject({ speaker: null, participant_id: null });
    expect(parsePocketsphinxOutput('')).toEqual([]);
  });
});

describe('the OpenAI-compatible engine', () => {
  let server: http.Server;
  let url = '';
  const problems: string[] = [];
  let received: { auth?: string; body: string } | undefined;
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('latin1');
        received = { auth: req.headers.authorization, body };
        if (req.method !== 'POST' || req.url !== '/v1/audio/transcriptions') problems.push(`${req.method} ${req.url}`);
        if (!req.headers['content-type']?.startsWith('multipart/form-data; boundary='))
          problems.push(`content-type ${req.headers['content-type']}`);
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(
          JSON.stringify({
            task: 'transcribe',
            language: 'english',
            segments: [
              { id: 0, start: 0, end: 1.5, text: ' We ship on Friday.' },
              { id: 1, start: 1.5, end: 2, text: '  ' },
            ],
          }),
        );
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it('uploads the wav file as multipart with the model and verbose_json, and maps the segments', async () => {
    const wavPath = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'stt-')), 'track-0.wav');
    fs.writeFileSync(wavPath, Buffer.from('RIFF-fake-wav-bytes'));
    const engine = new OpenAiSpeechToText({ url, apiKey: 'sk-test', model: 'whisper-1', timeoutMs: 5_000 });
    const segments = await engine.transcribe({ wavPath, speaker: 'Bob', participantId: 'par_bob' });
    expect(segments).toEqual([{ start: 0, end: 1.5, speaker: 'Bob', participant_id: 'par_bob', text: 'We ship on Friday.' }]);
    expect(problems).toEqual([]);
    expect(received!.auth).toBe('Bearer sk-test');
    expect(received!.body).toMatch(/name="file"; filename="track-0.wav"\r\nContent-Type: audio\/wav\r\n\r\nRIFF-fake-wav-bytes/);
    expect(received!.body).toMatch(/name="model"\r\n\r\nwhisper-1\r\n/);
    expect(received!.body).toMatch(/name="response_format"\r\n\r\nverbose_json\r\n/);
  });

  it('refuses an answer without segments', () => {
    expect(() => parseVerboseJson('{"text":"hello"}', null)).toThrow('without segments');
    expect(() => parseVerboseJson('<html>', null)).toThrow('other than JSON');
  });
});
