/** One parsed Make formula (the inside of a `{{...}}`), as far as the checker and runner understand Make's syntax. */
export type Expr =
  | { kind: 'ref'; module: number; path: string[] }
  | { kind: 'var'; name: string }
  | { kind: 'text'; value: string }
  | { kind: 'number'; value: number }
  | { kind: 'call'; name: string; args: Expr[] }
  | { kind: 'binary'; op: '+' | '-'; left: Expr; right: Expr };

/** A mapped value cut into literal text and formulas, in order. */
export type TemplatePart = { kind: 'literal'; text: string } | { kind: 'formula'; expr: Expr; source: string };

/** A formula this package cannot read: a syntax error or Make syntax it does not support. */
export class ExpressionError extends Error {
  override readonly name = 'ExpressionError';
}

type Token =
  | { kind: 'ref'; module: number; path: string[] }
  | { kind: 'name'; name: string }
  | { kind: 'text'; value: string }
  | { kind: 'number'; value: number }
  | { kind: 'punct'; value: '(' | ')' | ';' | '+' | '-' };

const REF = /^(\d+)\.([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)/;
const NUMBER = /^\d+(?:\.\d+)?/;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*/;

/** Cuts `text` into literal text and `{{...}}` formulas, parsing each formula. */
export function parseTemplate(text: string): TemplatePart[] {
  const parts: TemplatePart[] = [];
  let rest = text;
  while (rest.length > 0) {
    const open = rest.indexOf('{{');
    if (open === -1) {
      parts.push({ kind: 'literal', text: rest });
      break;
    }
    if (open > 0) parts.push({ kind: 'literal', text: rest.slice(0, open) });
    const close = formulaEnd(rest, open + 2);
    const source = rest.slice(open + 2, close);
    parts.push({ kind: 'formula', expr: parseFormula(source), source });
    rest = rest.slice(close + 2);
  }
  return parts;
}

/** Every node of one kind inside an expression. */
export function collect<K extends Expr['kind']>(expr: Expr, kind: K): Extract<Expr, { kind: K }>[] {
  const own = expr.kind === kind ? [expr as Extract<Expr, { kind: K }>] : [];
  if (expr.kind === 'call') return [...own, ...expr.args.flatMap((arg) => collect(arg, kind))];
  if (expr.kind === 'binary') return [...own, ...collect(expr.left, kind), ...collect(expr.right, kind)];
  return own;
}

function formulaEnd(text: string, from: number): number {
  let inString = false;
  for (let i = from; i < text.length; i++) {
    if (text[i] === '"') inString = !inString;
    else if (!inString && text.startsWith('}}', i)) return i;
  }
  throw new ExpressionError(`unterminated formula: {{${text.slice(from)}`);
}

function parseFormula(source: string): Expr {
  const tokens = tokenize(source);
  const parser = { tokens, at: 0 };
  const expr = parseSum(parser);
  if (parser.at < tokens.length) throw new ExpressionError(`unexpected ${describe(tokens[parser.at]!)} in {{${source}}}`);
  return expr;
}

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let rest = source.trimStart();
  while (rest.length > 0) {
    const [token, length] = nextToken(rest, source);
    tokens.push(token);
    rest = rest.slice(length).trimStart();
  }
  return tokens;
}

function nextToken(rest: string, source: string): [Token, number] {
  const ref = REF.exec(rest);
  if (ref) return [{ kind: 'ref', module: Number(ref[1]), path: ref[2]!.split('.') }, ref[0].length];
  const number = NUMBER.exec(rest);
  if (number) return [{ kind: 'number', value: Number(number[0]) }, number[0].length];
  const name = NAME.exec(rest);
  if (name) return [{ kind: 'name', name: name[0] }, name[0].length];
  if (rest[0] === '"') return stringToken(rest, source);
  const punct = rest[0];
  if (punct === '(' || punct === ')' || punct === ';' || punct === '+' || punct === '-') return [{ kind: 'punct', value: punct }, 1];
  throw new ExpressionError(`unsupported character ${JSON.stringify(rest[0])} in {{${source}}}`);
}

function stringToken(rest: string, source: string): [Token, number] {
  const end = rest.indexOf('"', 1);
  if (end === -1) throw new ExpressionError(`unterminated string in {{${source}}}`);
  const value = rest.slice(1, end);
  if (value.includes('\\')) throw new ExpressionError(`backslashes in strings are not supported: {{${source}}}`);
  return [{ kind: 'text', value }, end + 1];
}

interface Parser {
  tokens: Token[];
  at: number;
}

function parseSum(p: Parser): Expr {
  let left = parseTerm(p);
  for (let op = peekPunct(p); op === '+' || op === '-'; op = peekPunct(p)) {
    p.at++;
    left = { kind: 'binary', op, left, right: parseTerm(p) };
  }
  return left;
}

function parseTerm(p: Parser): Expr {
  const token = p.tokens[p.at++];
  if (!token) throw new ExpressionError('a formula ends where a value was expected');
  if (token.kind === 'ref' || token.kind === 'text' || token.kind === 'number') return token;
  if (token.kind === 'name') return peekPunct(p) === '(' ? parseCall(p, token.name) : { kind: 'var', name: token.name };
  if (token.value === '(') {
    const inner = parseSum(p);
    expectPunct(p, ')');
    return inner;
  }
  throw new ExpressionError(`unexpected ${describe(token)}`);
}

function parseCall(p: Parser, name: string): Expr {
  expectPunct(p, '(');
  const args: Expr[] = [];
  if (peekPunct(p) !== ')') {
    args.push(parseSum(p));
    while (peekPunct(p) === ';') {
      p.at++;
      args.push(parseSum(p));
    }
  }
  expectPunct(p, ')');
  return { kind: 'call', name, args };
}

function peekPunct(p: Parser): string | undefined {
  const token = p.tokens[p.at];
  return token?.kind === 'punct' ? token.value : undefined;
}

function expectPunct(p: Parser, value: string): void {
  const token = p.tokens[p.at++];
  if (token?.kind !== 'punct' || token.value !== value) {
    throw new ExpressionError(`expected "${value}" but found ${token ? describe(token) : 'the end of the formula'}`);
  }
}

function describe(token: Token): string {
  switch (token.kind) {
    case 'ref':
      return `${token.module}.${token.path.join('.')}`;
    case 'name':
      return token.name;
    case 'text':
      return JSON.stringify(token.value);
    default:
      return `"${token.value}"`;
  }
}
