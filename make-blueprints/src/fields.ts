const FIELD_TYPES = ['text', 'number', 'boolean', 'date', 'collection', 'array', 'any'] as const;

/** One output field of a module in Make's interface format; `spec` lists a collection's fields or an array's item fields. */
export interface Field {
  name: string;
  type: (typeof FIELD_TYPES)[number];
  label?: string;
  spec?: Field[];
}

/** A text field. */
export const text = (name: string): Field => ({ name, type: 'text' });
/** A number field. */
export const number = (name: string): Field => ({ name, type: 'number' });
/** A field whose shape is not known (anything below it may be referenced). */
export const anything = (name: string): Field => ({ name, type: 'any' });
/** A collection (an object) with the given fields. */
export const collection = (name: string, spec: Field[]): Field => ({ name, type: 'collection', spec });
/** An array whose items are collections with the given fields. */
export const arrayOf = (name: string, spec: Field[]): Field => ({ name, type: 'array', spec });

/** The field at `path` among `fields`, or why there is none. */
export function fieldAt(fields: Field[], path: string[]): Field | string {
  let candidates = fields;
  let field: Field | undefined;
  for (const [i, name] of path.entries()) {
    const walked = path.slice(0, i + 1).join('.');
    if (field?.type === 'any') return field;
    if (field && field.type !== 'collection') {
      const parent = path.slice(0, i).join('.');
      return field.type === 'array'
        ? `has ${parent} as an array: use map() or an iterator`
        : `has ${parent} as ${field.type}, not a collection`;
    }
    field = candidates.find((candidate) => candidate.name === name);
    if (!field) return `outputs no field "${walked}"`;
    candidates = field.spec ?? [];
  }
  return field ?? 'names no field';
}

/** True when `value` is a well-formed list of interface fields. */
export function isFieldList(value: unknown): value is Field[] {
  return Array.isArray(value) && value.every(isField);
}

function isField(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const field = value as Record<string, unknown>;
  return (
    typeof field.name === 'string' &&
    FIELD_TYPES.includes(field.type as Field['type']) &&
    (field.spec === undefined || isFieldList(field.spec))
  );
}
