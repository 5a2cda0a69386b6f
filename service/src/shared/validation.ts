import Ajv2020, { type ErrorObject } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { AppError, type FieldError } from './errors';

/** A JSON Schema (2020-12, the dialect of OpenAPI 3.1). */
export type JsonSchema = Record<string, unknown>;

const ajv = new Ajv2020({ allErrors: true, strict: false });
addFormats(ajv);
// Stricter than ajv-formats, which also takes any whitespace (a newline, U+3000) for the T and +0200 for +02:00.
ajv.addFormat('date-time', { type: 'string', validate: isRfc3339DateTime });
ajv.addFormat('single-line', { type: 'string', validate: (text: string) => !NOT_IN_SINGLE_LINE.test(text) });
ajv.addFormat('multi-line', { type: 'string', validate: (text: string) => !NOT_IN_MULTI_LINE.test(text) });

// Control characters (C0, DEL, C1), line and paragraph separators, and the bidi embeddings, overrides
// and isolates that can make a title read differently from what it is (U+202A-E, U+2066-9).
const NOT_IN_SINGLE_LINE = /[\p{Cc}\u2028\u2029\u202A-\u202E\u2066-\u2069]/u;
const NOT_IN_MULTI_LINE = /(?![\t\n\r])[\p{Cc}\u202A-\u202E\u2066-\u2069]/u;
const LONE_SURROGATE = /\p{Cs}/u;
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.\d{1,9})?(?:[Zz]|[+-](\d{2}):(\d{2}))$/;

/** True for an RFC 3339 date-time with an offset (`2026-05-01T09:00:00+02:00`, `...Z`) that names a real instant; leap seconds are refused. */
export function isRfc3339DateTime(text: string): boolean {
  const m = RFC3339.exec(text);
  if (!m) return false;
  const [year, month, day, hour, minute, second, offsetHour = 0, offsetMinute = 0] = m.slice(1).map((part) => Number(part ?? 0));
  const daysInMonth = new Date(Date.UTC(year!, month!, 0)).getUTCDate();
  return (
    month! >= 1 &&
    month! <= 12 &&
    day! >= 1 &&
    day! <= daysInMonth &&
    hour! <= 23 &&
    minute! <= 59 &&
    second! <= 59 &&
    offsetHour <= 23 &&
    offsetMinute <= 59
  );
}

/** Text rules every validated body obeys before its schema is checked: every string (and key) is well-formed Unicode. */
function firstIllFormedString(body: object): string | null {
  const pending: [value: unknown, path: string][] = [[body, '']];
  // Iterative, so a deeply nested body cannot overflow the stack; bounded by the body's size.
  while (pending.length > 0) {
    const [value, path] = pending.pop()!;
    if (typeof value === 'string') {
      if (LONE_SURROGATE.test(value)) return path || 'body';
    } else if (value && typeof value === 'object') {
      for (const [key, child] of Object.entries(value)) {
        const childPath = path ? `${path}.${key}` : key;
        if (LONE_SURROGATE.test(key)) return childPath;
        pending.push([child, childPath]);
      }
    }
  }
  return null;
}

/** Compiles `schema` into a function that returns a JSON object typed as T, or throws validation_failed naming each offending field. */
export function objectValidator<T>(schema: JsonSchema): (body: unknown) => T {
  const validate = ajv.compile(schema);
  return (body) => {
    const value = body ?? {};
    if (typeof value !== 'object' || Array.isArray(value)) {
      throw AppError.invalid([{ param: 'body', message: 'must be a JSON object' }]);
    }
    const illFormed = firstIllFormedString(value);
    if (illFormed) throw AppError.invalid([{ param: illFormed, message: 'must be well-formed Unicode (it has an unpaired surrogate)' }]);
    if (!validate(value)) throw AppError.invalid(dedupe((validate.errors ?? []).map(toFieldError)));
    return value as T;
  };
}

function toFieldError(e: ErrorObject): FieldError {
  const path = e.instancePath.split('/').slice(1).join('.');
  const join = (name: string) => (path ? `${path}.${name}` : name);
  switch (e.keyword) {
    case 'required':
      return { param: join(String(e.params.missingProperty)), message: 'is required' };
    case 'additionalProperties':
      return { param: join(String(e.params.additionalProperty)), message: 'is not a known field' };
    case 'pattern':
      // `\S` is how schemas say "not only spaces"; the regular expression means nothing to the person who typed the value.
      if (e.params.pattern === '\\S') return { param: path || 'body', message: 'must not be blank' };
      return { param: path || 'body', message: e.message ?? 'is invalid' };
    case 'format':
      return { param: path || 'body', message: FORMAT_MESSAGES[String(e.params.format)] ?? `must be a valid ${e.params.format}` };
    default:
      return { param: path || 'body', message: e.message ?? 'is invalid' };
  }
}

const FORMAT_MESSAGES: Record<string, string> = {
  'date-time': 'must be an RFC 3339 date-time with a UTC offset, e.g. 2026-05-01T09:00:00+02:00',
  'single-line': 'must be one line of text: no control characters, line breaks or bidirectional overrides',
  'multi-line': 'must be text: no control characters other than tab and line breaks, no bidirectional overrides',
  email: 'must be an email address',
  uri: 'must be an absolute URL',
};

function dedupe(errors: FieldError[]): FieldError[] {
  const seen = new Set<string>();
  return errors.filter((e) => !seen.has(e.param) && seen.add(e.param));
}
