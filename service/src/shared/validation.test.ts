import { AppError } from './errors';
import { objectValidator } from './validation';

describe('objectValidator', () => {
  const validate = objectValidator<{ title: string; at?: string }>({
    type: 'object',
    additionalProperties: false,
    required: ['title'],
    properties: { title: { type: 'string', minLength: 1 }, at: { type: 'string', format: 'date-time' } },
  });
  const errorOf = (input: unknown): AppError => {
    try {
      validate(input);
    } catch (e) {
      return e as AppError;
    }
    throw new Error('expected a validation error');
  };

  it('returns a valid object as it is', () => {
    expect(validate({ title: 'Sync', at: '2026-12-01T10:00:00+02:00' })).toEqual({ title: 'Sync', at: '2026-12-01T10:00:00+02:00' });
  });

  it('names every offending field, the first as param', () => {
    const err = errorOf({ at: 'tomorrow', colour: 'red' });
    expect(err.code).toBe('validation_failed');
    expect(err.extra.param).toBe('title');
    expect(err.extra.errors).toEqual([
      { param: 'title', message: 'is required' },
      { param: 'colour', message: 'is not a known field' },
      { param: 'at', message: expect.stringContaining('RFC 3339 date-time') },
    ]);
  });

  it('says a value of only spaces is blank instead of quoting the pattern', () => {
    const blank = objectValidator<{ name: string }>({
      type: 'object',
      properties: { name: { type: 'string', pattern: '\\S' }, code: { type: 'string', pattern: '^[a-z]+$' } },
    });
    try {
      blank({ name: '   ', code: 'A' });
    } catch (e) {
      expect((e as AppError).extra.errors).toEqual([
        { param: 'name', message: 'must not be blank' },
        { param: 'code', message: 'must match pattern "^[a-z]+$"' },
      ]);
      return;
    }
    throw new Error('expected a validation error');
  });

  it.each([[[]], ['text'], [42]])('refuses a body that is not a JSON object: %j', (input) => {
    expect(errorOf(input).extra).toMatchObject({ param: 'body' });
  });
});
