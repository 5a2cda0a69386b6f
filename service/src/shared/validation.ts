import Ajv2020, { type ErrorObject } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { AppError, type FieldError } from './errors';

/** A JSON Schema (2020-12, the dialect of OpenAPI 3.1). */
export type JsonSchema = Record<string, unknown>;

const ajv = new Ajv2020({ allErrors: true, strict: false });
addFormats(ajv);

/** Compiles `schema` into a function that returns a JSON object typed as T, or throws validation_failed naming each offending field. */
export function objectValidator<T>(schema: JsonSchema): (body: unknown) => T {
  const validate = ajv.compile(schema);
  return (body) => {
    const value = body ?? {};
    if (typeof value !== 'object' || Array.isArray(value)) {
      throw AppError.invalid([{ param: 'body', message: 'must be a JSON object' }]);
    }
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
    case 'format':
      return { param: path || 'body', message: FORMAT_MESSAGES[String(e.params.format)] ?? `must be a valid ${e.params.format}` };
    default:
      return { param: path || 'body', message: e.message ?? 'is invalid' };
  }
}

const FORMAT_MESSAGES: Record<string, string> = {
  'date-time': 'must be an ISO 8601 date-time with a UTC offset, e.g. 2026-05-01T09:00:00+02:00',
  email: 'must be an email address',
  uri: 'must be an absolute URL',
};

function dedupe(errors: FieldError[]): FieldError[] {
  const seen = new Set<string>();
  return errors.filter((e) => !seen.has(e.param) && seen.add(e.param));
}
