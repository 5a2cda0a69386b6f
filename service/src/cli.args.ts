import { SCOPES, isScope, type Scope } from './keys/scopes';
import { EVENT_TYPES, isEventType, type EventType } from './events/event-types';
import type { Services } from './services';

/** Where the CLI writes. */
export interface CliIo {
  out: (text: string) => void;
  err: (text: string) => void;
}

/** One option of a command, as `parseArgs` takes it plus what `svc help` shows. */
export interface CliOption {
  type: 'string' | 'boolean';
  short?: string;
  /** The value's placeholder in the help, e.g. NAME. */
  value?: string;
  required?: boolean;
  help: string;
}

/** What a command run on the services gets. */
export interface CommandContext {
  services: Services;
  io: CliIo;
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
  /** What was piped in (for `users set-password`). */
  stdin: string;
  ownerId: string;
}

/**
 * One `svc` command: the words that name it, its help, and how it runs. `svc help` and the dispatcher both read
 * this table, so a command is registered with its help in one place. `run` works on the bootstrapped services;
 * `runAlone` gets the raw arguments and starts what it needs itself (before or without a bootstrap).
 */
export interface CliCommand {
  name: string;
  /** Positional arguments as shown in the help, e.g. KEY_ID. */
  args?: string;
  summary: string;
  /** More lines shown by `svc help <command>`. */
  details?: string;
  options?: Record<string, CliOption>;
  /** Reads stdin (a password) before running: prompted for hidden on a terminal, else read from the pipe. */
  readsSecret?: boolean;
  run?: (ctx: CommandContext) => number;
  runAlone?: (argv: string[], io: CliIo) => Promise<number>;
}

/** A command line the command cannot run with: `svc` prints the message and the command's help, and exits 2. */
export class UsageError extends Error {}

/** The scopes of `--scopes` (comma-separated, or "all"). */
export function parseScopes(raw: string | undefined): Scope[] {
  if (!raw) throw new UsageError('--scopes is required (comma-separated, or "all")');
  if (raw === 'all') return [...SCOPES];
  const scopes = raw.split(',').map((s) => s.trim());
  const unknown = scopes.filter((s) => !isScope(s));
  if (unknown.length > 0) throw new UsageError(`unknown scope(s): ${unknown.join(', ')}`);
  return scopes as Scope[];
}

/** The event types of `--events` (comma-separated, or "all"). */
export function parseEvents(raw: string | undefined): EventType[] {
  if (!raw) throw new UsageError('--events is required (comma-separated event types, or "all")');
  if (raw === 'all') return [...EVENT_TYPES];
  const types = raw.split(',').map((s) => s.trim());
  const unknown = types.filter((t) => !isEventType(t));
  if (unknown.length > 0) throw new UsageError(`unknown event type(s): ${unknown.join(', ')}`);
  return types as EventType[];
}

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const LONGEST_EXPIRY_MS = 3650 * UNIT_MS.d!;
const LARGEST_RATE_LIMIT = 1_000_000;

/** Parses `90s`, `15m`, `12h` or `30d` (at most ten years) into milliseconds. */
export function parseDuration(raw: string): number {
  const match = /^(\d{1,12})([smhd])$/.exec(raw);
  if (!match || Number(match[1]) === 0) throw new UsageError(`--expires-in must look like 90s, 15m, 12h or 30d, got "${raw}"`);
  const ms = Number(match[1]) * UNIT_MS[match[2]!]!;
  if (ms > LONGEST_EXPIRY_MS) throw new UsageError(`--expires-in must be at most 3650d (ten years), got "${raw}"`);
  return ms;
}

/** A positive whole number flag, or null when absent. */
// Decimal digits only: Number() would also take 0x10, 1e3, 2.0 and surrounding spaces.
export function optionalPositive(raw: string | undefined, flag: string): number | null {
  if (raw === undefined) return null;
  const n = /^[1-9]\d{0,6}$/.test(raw) ? Number(raw) : NaN;
  if (!(n >= 1 && n <= LARGEST_RATE_LIMIT))
    throw new UsageError(`${flag} must be a whole number from 1 to ${LARGEST_RATE_LIMIT}, got "${raw}"`);
  return n;
}
