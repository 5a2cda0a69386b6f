/** One thing wrong with a blueprint, at a JSON path such as `flow[2].mapper.url`. */
export interface Problem {
  path: string;
  message: string;
}

/** A check of one value: undefined when it passes, else what the value must be. */
export type Rule = (value: unknown) => string | undefined;

/** True for a plain JSON object. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A text value. */
export const isText: Rule = (value) => (typeof value === 'string' ? undefined : 'text');
/** A number. */
export const isNumber: Rule = (value) => (typeof value === 'number' && Number.isFinite(value) ? undefined : 'a number');
/** A boolean. */
export const isBoolean: Rule = (value) => (typeof value === 'boolean' ? undefined : 'a boolean');
/** Any JSON object. */
export const isObject: Rule = (value) => (isRecord(value) ? undefined : 'an object');
/** Any array. */
export const isArray: Rule = (value) => (Array.isArray(value) ? undefined : 'an array');
/** Anything but undefined. */
export const isPresent: Rule = (value) => (value === undefined ? 'present' : undefined);

/** One of the given literal values. */
export function oneOf(...allowed: unknown[]): Rule {
  return (value) => (allowed.includes(value) ? undefined : `one of ${allowed.map((a) => JSON.stringify(a)).join(', ')}`);
}

/** Either rule. */
export function either(a: Rule, b: Rule): Rule {
  return (value) => (a(value) === undefined || b(value) === undefined ? undefined : `${a(value)} or ${b(value)}`);
}

/** An array whose items are objects with the given keys. */
export function listOf(shape: Record<string, Rule>): Rule {
  const keys = Object.keys(shape).join(', ');
  return (value) =>
    Array.isArray(value) &&
    value.every((item) => isRecord(item) && Object.entries(shape).every(([key, rule]) => rule(item[key]) === undefined))
      ? undefined
      : `an array of {${keys}}`;
}

/** `path.key`, or `key` at the top. */
export function join(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

/** The problems of the keys of `value` (an object) against `shape`, one per failing key. */
export function checkShape(value: unknown, shape: Record<string, Rule>, path: string): Problem[] {
  if (!isRecord(value)) return [{ path, message: 'must be an object' }];
  return Object.entries(shape).flatMap(([key, rule]) => {
    const expected = rule(value[key]);
    return expected === undefined
      ? []
      : [{ path: join(path, key), message: value[key] === undefined ? `is missing (must be ${expected})` : `must be ${expected}` }];
  });
}
