import fs from 'node:fs';
import path from 'node:path';

/** What a running service writes into its data directory, so the CLI beside it prints links the service answers. */
export interface RunningServiceRecord {
  pid: number;
  base_url: string;
  started_at: string;
}

/** The record's file in a data directory. */
export function runningServicePath(dataDir: string): string {
  return path.join(dataDir, 'running-service.json');
}

/** Writes the record of this process (mode 0600, replaced atomically). */
export function recordRunningService(dataDir: string, baseUrl: string, now = new Date()): void {
  const record: RunningServiceRecord = { pid: process.pid, base_url: baseUrl, started_at: now.toISOString() };
  const file = runningServicePath(dataDir);
  const temp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temp, `${JSON.stringify(record)}\n`, { mode: 0o600 });
  fs.renameSync(temp, file);
}

/** Removes the record when it is this process's (a newer service may have replaced it). */
export function forgetRunningService(dataDir: string): void {
  const record = readRecord(dataDir);
  if (record?.pid === process.pid) fs.rmSync(runningServicePath(dataDir), { force: true });
}

/** The record of the service running on `dataDir`, or undefined when none runs (no record, or its process is gone). */
export function readRunningService(dataDir: string): RunningServiceRecord | undefined {
  const record = readRecord(dataDir);
  return record && isAlive(record.pid) ? record : undefined;
}

function readRecord(dataDir: string): RunningServiceRecord | undefined {
  try {
    const value = JSON.parse(fs.readFileSync(runningServicePath(dataDir), 'utf8')) as Partial<RunningServiceRecord>;
    if (typeof value.pid !== 'number' || typeof value.base_url !== 'string' || !/^https?:\/\/[^/]+/.test(value.base_url)) return undefined;
    return value as RunningServiceRecord;
  } catch {
    return undefined;
  }
}

/** Whether a process with this id exists (also one of another user, such as a service run under systemd as its own user). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to another user (a service run under systemd as its own user).
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
