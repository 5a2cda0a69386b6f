/** A configuration value that cannot be used; the message names the variable. */
export class ConfigError extends Error {}

/** The integer in `env[name]` within min..max, or `fallback` when unset; a ConfigError naming the variable otherwise. */
export function readInteger(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

/** The boolean (true/false/1/0) in `env[name]`, or `fallback` when unset; a ConfigError naming the variable otherwise. */
export function readBoolean(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}
