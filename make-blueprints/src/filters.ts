import { isEmpty, textOf } from './functions';

function numeric(value: unknown): number {
  if (typeof value === 'number') return value;
  return typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
}

/** Make's filter operators that the shipped blueprints use (a number comparison with a non-number is false). */
export const FILTER_OPERATORS: Record<string, (a: unknown, b: unknown) => boolean> = {
  exist: (a) => !isEmpty(a),
  notexist: (a) => isEmpty(a),
  'text:equal': (a, b) => textOf(a) === textOf(b),
  'text:notequal': (a, b) => textOf(a) !== textOf(b),
  'text:contain': (a, b) => textOf(a).includes(textOf(b)),
  'text:notcontain': (a, b) => !textOf(a).includes(textOf(b)),
  'number:equal': (a, b) => numeric(a) === numeric(b),
  'number:notequal': (a, b) => !Number.isNaN(numeric(a)) && numeric(a) !== numeric(b),
  'number:greater': (a, b) => numeric(a) > numeric(b),
  'number:less': (a, b) => numeric(a) < numeric(b),
  'number:greaterorequal': (a, b) => numeric(a) >= numeric(b),
  'number:lessorequal': (a, b) => numeric(a) <= numeric(b),
};

/** True for an operator that compares `a` with a second operand `b`. */
export function takesOperand(operator: string): boolean {
  return operator !== 'exist' && operator !== 'notexist';
}
