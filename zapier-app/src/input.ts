import type { ZObject } from 'zapier-platform-core';

function invalid(z: ZObject, key: string, expected: string): never {
  throw new z.errors.Error(`${key} must be ${expected}`, 'invalid_input', 400);
}

/** A text input trimmed, or undefined when it was left empty. */
export function optionalText(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  const text = String(value).trim();
  return text === '' ? undefined : text;
}

/** A whole-number input given as a number or as digits (values mapped from earlier steps arrive as text), or undefined when empty. */
export function optionalInteger(z: ZObject, key: string, value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isInteger(value) ? value : invalid(z, key, 'a whole number');
  const text = optionalText(value);
  if (text === undefined) return undefined;
  return /^-?\d+$/.test(text) ? Number(text) : invalid(z, key, 'a whole number');
}

/** A yes/no input given as a boolean or as true/false/yes/no text, or undefined when empty. */
export function optionalFlag(z: ZObject, key: string, value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  const text = optionalText(value)?.toLowerCase();
  if (text === undefined) return undefined;
  if (text === 'true' || text === 'yes') return true;
  if (text === 'false' || text === 'no') return false;
  return invalid(z, key, 'true or false');
}
