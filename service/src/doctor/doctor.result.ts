import type { Config } from '../config';

/** How a check came out: `fail` makes `svc doctor` exit 1. */
export type CheckStatus = 'ok' | 'warn' | 'fail';

/** One check's verdict: what was found and, unless ok, what to do about it. */
export interface CheckResult {
  name: string;
  status: CheckStatus;
  message: string;
  fix?: string;
}

/** The settings the checks read: the validated configuration, and the environment for what config.ts does not hold yet. */
export interface DoctorInput {
  config: Config;
  env: NodeJS.ProcessEnv;
}

/** A check that passed. */
export const ok = (name: string, message: string): CheckResult => ({ name, status: 'ok', message });
/** A check that found something to fix, which svc runs with. */
export const warn = (name: string, message: string, fix: string): CheckResult => ({ name, status: 'warn', message, fix });
/** A check that found something svc cannot run with. */
export const fail = (name: string, message: string, fix: string): CheckResult => ({ name, status: 'fail', message, fix });
