/**
 * The row-level-security clauses of guest tokens, applied to the emulator's sample rows: a small
 * SQL boolean-expression language, enough for what integrators write (`customer_id = 'acme'`,
 * `region IN ('north', 'south')`, `amount >= 100 AND NOT region = 'east'`), with SQL's string
 * literals (`'o''hare'`: a doubled quote is a quote). Superset pastes each clause into the query's
 * WHERE inside parentheses (superset/models/helpers.py, `get_sqla_row_level_filters`), so a clause
 * that widens the query there widens it here: `customer_id = 'x' OR '1'='1'` is every row, while
 * the same value quoted as a literal, `customer_id = 'x'' OR ''1''=''1'`, matches none. What does
 * not parse is refused, as the real database refuses it (422 INVALID_SQL_ERROR).
 */

export type SqlValue = string | number | null;
export type Row = Readonly<Record<string, SqlValue>>;

type Token =
  { kind: 'string'; value: string } | { kind: 'number'; value: number } | { kind: 'word'; value: string } | { kind: 'op'; value: string } | { kind: 'end' };

type Expr =
  | { kind: 'or' | 'and'; left: Expr; right: Expr }
  | { kind: 'not'; operand: Expr }
  | { kind: 'compare'; op: string; left: Operand; right: Operand }
  | { kind: 'in'; negated: boolean; operand: Operand; list: Operand[] }
  | { kind: 'isNull'; negated: boolean; operand: Operand }
  | { kind: 'truth'; operand: Operand };

type Operand = { kind: 'literal'; value: SqlValue } | { kind: 'column'; name: string };

/** A clause that does not parse; the message says where. */
export class SqlClauseError extends Error {}

/** Longest clause accepted: far beyond any template, short enough that parsing stays trivial. */
export const MAX_CLAUSE_LENGTH = 4096;
const KEYWORDS = new Set(['AND', 'OR', 'NOT', 'IN', 'IS', 'NULL']);

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const char = text[i]!;
    if (/\s/.test(char)) {
      i++;
    } else if (char === "'") {
      let value = '';
      i++;
      for (;;) {
        if (i >= text.length) throw new SqlClauseError('unterminated string literal');
        if (text[i] === "'") {
          if (text[i + 1] === "'") {
            value += "'";
            i += 2;
            continue;
          }
          i++;
          break;
        }
        value += text[i++];
      }
      tokens.push({ kind: 'string', value });
    } else if (/[0-9]/.test(char)) {
      const match = /^[0-9]+(\.[0-9]+)?/.exec(text.slice(i))!;
      tokens.push({ kind: 'number', value: Number(match[0]) });
      i += match[0].length;
    } else if (/[A-Za-z_]/.test(char)) {
      const match = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(i))!;
      tokens.push({ kind: 'word', value: match[0] });
      i += match[0].length;
    } else if (char === '"') {
      const end = text.indexOf('"', i + 1);
      if (end === -1) throw new SqlClauseError('unterminated quoted identifier');
      tokens.push({ kind: 'word', value: text.slice(i + 1, end) });
      i = end + 1;
    } else {
      const op = ['<>', '!=', '<=', '>=', '=', '<', '>', '(', ')', ','].find((candidate) => text.startsWith(candidate, i));
      if (!op) throw new SqlClauseError(`unexpected ${JSON.stringify(char)} at ${i}`);
      tokens.push({ kind: 'op', value: op });
      i += op.length;
    }
  }
  tokens.push({ kind: 'end' });
  return tokens;
}

class Parser {
  private at = 0;
  constructor(
    private readonly tokens: Token[],
    private readonly columns: ReadonlySet<string>,
  ) {}

  parse(): Expr {
    const expr = this.or();
    if (this.peek().kind !== 'end') throw new SqlClauseError('unexpected text after the expression');
    return expr;
  }

  private peek(): Token {
    return this.tokens[this.at]!;
  }
  private next(): Token {
    return this.tokens[this.at++]!;
  }
  private isWord(word: string): boolean {
    const token = this.peek();
    return token.kind === 'word' && token.value.toUpperCase() === word;
  }
  private isOp(op: string): boolean {
    const token = this.peek();
    return token.kind === 'op' && token.value === op;
  }
  private expectOp(op: string): void {
    if (!this.isOp(op)) throw new SqlClauseError(`expected ${op}`);
    this.next();
  }

  private or(): Expr {
    let left = this.and();
    while (this.isWord('OR')) {
      this.next();
      left = { kind: 'or', left, right: this.and() };
    }
    return left;
  }
  private and(): Expr {
    let left = this.not();
    while (this.isWord('AND')) {
      this.next();
      left = { kind: 'and', left, right: this.not() };
    }
    return left;
  }
  private not(): Expr {
    if (this.isWord('NOT')) {
      this.next();
      return { kind: 'not', operand: this.not() };
    }
    return this.predicate();
  }
  private predicate(): Expr {
    if (this.isOp('(')) {
      this.next();
      const inner = this.or();
      this.expectOp(')');
      return inner;
    }
    const operand = this.operand();
    const token = this.peek();
    if (token.kind === 'op' && ['=', '<>', '!=', '<', '>', '<=', '>='].includes(token.value)) {
      this.next();
      return { kind: 'compare', op: token.value, left: operand, right: this.operand() };
    }
    if (this.isWord('IS')) {
      this.next();
      const negated = this.isWord('NOT');
      if (negated) this.next();
      if (!this.isWord('NULL')) throw new SqlClauseError('expected NULL after IS');
      this.next();
      return { kind: 'isNull', negated, operand };
    }
    const negated = this.isWord('NOT');
    if (negated) this.next();
    if (this.isWord('IN')) {
      this.next();
      this.expectOp('(');
      const list = [this.operand()];
      while (this.isOp(',')) {
        this.next();
        list.push(this.operand());
      }
      this.expectOp(')');
      return { kind: 'in', negated, operand, list };
    }
    if (negated) throw new SqlClauseError('expected IN after NOT');
    return { kind: 'truth', operand };
  }
  private operand(): Operand {
    const token = this.next();
    if (token.kind === 'string' || token.kind === 'number') return { kind: 'literal', value: token.value };
    if (token.kind === 'word') {
      if (token.value.toUpperCase() === 'NULL') return { kind: 'literal', value: null };
      if (KEYWORDS.has(token.value.toUpperCase())) throw new SqlClauseError(`unexpected ${token.value}`);
      if (!this.columns.has(token.value)) throw new SqlClauseError(`no such column: ${token.value.slice(0, 64)}`);
      return { kind: 'column', name: token.value };
    }
    throw new SqlClauseError(token.kind === 'end' ? 'unexpected end of the clause' : `unexpected ${token.value}`);
  }
}

/** SQLite's comparison: numbers and numeric text compare as numbers, text as text; NULL is unknown. */
function compare(op: string, left: SqlValue, right: SqlValue): boolean | null {
  if (left === null || right === null) return null;
  const numeric = typeof left === 'number' || typeof right === 'number';
  const a = numeric ? Number(left) : left;
  const b = numeric ? Number(right) : right;
  switch (op) {
    case '=':
      return a === b;
    case '<>':
    case '!=':
      return a !== b;
    case '<':
      return a < b;
    case '>':
      return a > b;
    case '<=':
      return a <= b;
    default:
      return a >= b;
  }
}

const value = (operand: Operand, row: Row): SqlValue => (operand.kind === 'literal' ? operand.value : (row[operand.name] ?? null));

/** SQL's three-valued logic: `null` is unknown, and a WHERE keeps only `true`. */
function evaluate(expr: Expr, row: Row): boolean | null {
  switch (expr.kind) {
    case 'or': {
      const left = evaluate(expr.left, row);
      const right = evaluate(expr.right, row);
      return left === true || right === true ? true : left === null || right === null ? null : false;
    }
    case 'and': {
      const left = evaluate(expr.left, row);
      const right = evaluate(expr.right, row);
      return left === false || right === false ? false : left === null || right === null ? null : true;
    }
    case 'not': {
      const inner = evaluate(expr.operand, row);
      return inner === null ? null : !inner;
    }
    case 'compare':
      return compare(expr.op, value(expr.left, row), value(expr.right, row));
    case 'in': {
      const left = value(expr.operand, row);
      const results = expr.list.map((item) => compare('=', left, value(item, row)));
      const found = results.includes(true) ? true : results.includes(null) ? null : false;
      return found === null ? null : expr.negated ? !found : found;
    }
    case 'isNull':
      return (value(expr.operand, row) === null) !== expr.negated;
    case 'truth': {
      const v = value(expr.operand, row);
      return v === null ? null : Number(v) !== 0 && !Number.isNaN(Number(v));
    }
  }
}

/** A parsed clause: `matches(row)` is what a WHERE over the row keeps. Throws `SqlClauseError` for what does not parse. */
export function parseClause(text: string, columns: ReadonlySet<string>): { matches(row: Row): boolean } {
  if (typeof text !== 'string') throw new SqlClauseError('a clause is text');
  if (text.length > MAX_CLAUSE_LENGTH) throw new SqlClauseError(`a clause is at most ${MAX_CLAUSE_LENGTH} characters`);
  const expr = new Parser(tokenize(text), columns).parse();
  return { matches: (row) => evaluate(expr, row) === true };
}
