import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const SCRIPT = path.join(__dirname, 'verify_receiver.py');

/** One request as verify_receiver.py logged it. */
export interface ReceivedDelivery {
  webhook_id: string | null;
  delivery_id: string | null;
  event_type: string | null;
  valid_svc: boolean;
  valid_standard: boolean;
  status: 204 | 401;
  body: string;
}

/** A running verify_receiver.py on 127.0.0.1. */
export interface VerifyReceiver {
  url: string;
  /** Every request received so far, oldest first. */
  deliveries(): ReceivedDelivery[];
  /** Sends SIGTERM, removes the log and resolves with the exit code. */
  stop(): Promise<number | null>;
}

/** Starts the Python receiver with these secrets (via SVC_WEBHOOK_SECRETS) and waits for its port (at most 10 s). */
export async function startVerifyReceiver(opts: {
  secrets: string[];
  require?: 'both' | 'svc' | 'standard' | 'any';
  maxSeconds?: number;
}): Promise<VerifyReceiver> {
  const logPath = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'svc-receiver-')), 'deliveries.jsonl');
  const child = spawn(
    'python3',
    [SCRIPT, '--log', logPath, '--require', opts.require ?? 'both', '--max-seconds', String(opts.maxSeconds ?? 120)],
    {
      env: { ...process.env, SVC_WEBHOOK_SECRETS: opts.secrets.join(',') },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const port = await new Promise<number>((resolve, reject) => {
    let stdout = '';
    const timer = setTimeout(() => reject(new Error(`verify_receiver.py printed no port in 10 s: ${stderr}`)), 10_000);
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const firstLine = /^(\d+)\n/.exec(stdout);
      if (firstLine) {
        clearTimeout(timer);
        resolve(Number(firstLine[1]));
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`verify_receiver.py exited with ${code}: ${stderr}`));
    });
  });
  return {
    url: `http://127.0.0.1:${port}`,
    deliveries: () =>
      fs.existsSync(logPath)
        ? fs
            .readFileSync(logPath, 'utf8')
            .split('\n')
            .filter(Boolean)
            .map((line) => JSON.parse(line) as ReceivedDelivery)
        : [],
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const code = await exited;
      fs.rmSync(path.dirname(logPath), { recursive: true, force: true });
      return code;
    },
  };
}
