import { createHash, createHmac } from 'node:crypto';

/** A Make function as the runner implements it: its arity and its behaviour. */
export interface MakeFunction {
  minArgs: number;
  maxArgs: number;
  apply(args: unknown[]): unknown;
}

/** A failure inside a Make function, reported with the function's name. */
export class MakeFunctionError extends Error {
  override readonly name = 'MakeFunctionError';
}

const DIGEST_ENCODINGS: readonly BufferEncoding[] = ['hex', 'base64', 'latin1'];
const KEY_ENCODINGS: Record<string, BufferEncoding> = { text: 'utf8', hex: 'hex', base64: 'base64' };

/** Make's text rendering of a value: empty for null and undefined, never a collection or an array. */
export function textOf(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'object') throw new MakeFunctionError('a collection or an array cannot be used as text');
  return String(value);
}

/** True for the values Make treats as empty: undefined, null and the empty text. */
export function isEmpty(value: unknown): boolean {
  return value === undefined || value === null || value === '';
}

function sha256(args: unknown[]): string {
  const [text, encoding = 'hex', key, keyEncoding = 'text'] = args;
  const digestEncoding = textOf(encoding) as BufferEncoding;
  if (!DIGEST_ENCODINGS.includes(digestEncoding)) throw new MakeFunctionError(`sha256: unsupported encoding ${JSON.stringify(encoding)}`);
  if (isEmpty(key)) return createHash('sha256').update(textOf(text), 'utf8').digest().toString(digestEncoding);
  const keyBytes = KEY_ENCODINGS[textOf(keyEncoding)];
  if (!keyBytes) throw new MakeFunctionError(`sha256: unsupported key encoding ${JSON.stringify(keyEncoding)}`);
  return createHmac('sha256', Buffer.from(textOf(key), keyBytes))
    .update(textOf(text), 'utf8')
    .digest()
    .toString(digestEncoding);
}

function map(args: unknown[]): unknown[] {
  const [array, key, filterKey, ...allowed] = args;
  if (!Array.isArray(array)) throw new MakeFunctionError('map: the first argument must be an array');
  if (filterKey !== undefined && allowed.length === 0) throw new MakeFunctionError('map: a filter key needs at least one value to keep');
  const wanted = allowed.map(textOf);
  return array
    .filter((item): item is Record<string, unknown> => typeof item === 'object' && item !== null)
    .filter((item) => filterKey === undefined || wanted.includes(textOf(item[textOf(filterKey)])))
    .map((item) => item[textOf(key)]);
}

function first(args: unknown[]): unknown {
  const [array] = args;
  if (!Array.isArray(array)) throw new MakeFunctionError('first: the argument must be an array');
  return array[0];
}

/** The Make functions the shipped blueprints use, implemented after Make's function reference. */
export const MAKE_FUNCTIONS: Record<string, MakeFunction> = {
  sha256: { minArgs: 1, maxArgs: 4, apply: sha256 },
  map: { minArgs: 2, maxArgs: Infinity, apply: map },
  first: { minArgs: 1, maxArgs: 1, apply: first },
  ifempty: { minArgs: 2, maxArgs: 2, apply: ([value, fallback]) => (isEmpty(value) ? fallback : value) },
  encodeURL: { minArgs: 1, maxArgs: 1, apply: ([text]) => encodeURIComponent(textOf(text)) },
  length: { minArgs: 1, maxArgs: 1, apply: ([value]) => (Array.isArray(value) ? value.length : textOf(value).length) },
  min: { minArgs: 1, maxArgs: Infinity, apply: (args) => Math.min(...args.flat().map(minOperand)) },
};

function minOperand(value: unknown): number {
  const n = Number(value);
  if (value === '' || value === null || value === undefined || !Number.isFinite(n))
    throw new MakeFunctionError(`min: ${JSON.stringify(value)} is not a number`);
  return n;
}

/** The Make variables the shipped blueprints use; `timestamp` is the current Unix time in whole seconds. */
export const MAKE_VARIABLES: Record<string, (nowMs: number) => unknown> = {
  timestamp: (nowMs) => Math.floor(nowMs / 1000),
  true: () => true,
  false: () => false,
};
