/** Log verbosity, most to least. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';

/** Every log level, most verbose first. */
export const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error', 'silent'];

/** Structured logging as one JSON object per line; callers never pass secrets. */
export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

/** A logger writing JSON lines at or above `level` to `write` (stderr by default). */
export function createLogger(level: LogLevel, write: (line: string) => void = (l) => process.stderr.write(l)): Logger {
  const at = (lvl: Exclude<LogLevel, 'silent'>) => (msg: string, fields?: Record<string, unknown>) => {
    if (RANK[lvl] < RANK[level]) return;
    write(JSON.stringify({ time: new Date().toISOString(), level: lvl, msg, ...fields }) + '\n');
  };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}
