import { BffError } from '../errors/bff-error.js';

/**
 * Templates over verified session claims, for what a vendor must be told about a customer and
 * that the browser must never choose: Superset's row-level security clauses
 * (`customer_id = {org_id}`), Metabase's locked parameters. A template is parsed once at startup
 * (a bad one is the integrator's mistake: `TypeError`); rendering takes each placeholder's value
 * from the session and refuses (`403 forbidden`) any value it cannot render safely, so a rendered
 * template never says more or less than the integrator wrote.
 */

/** A template parsed: literal text and placeholders, in order. */
export interface ClaimTemplate {
  readonly source: string;
  readonly parts: readonly ({ text: string } | { claim: string })[];
  /** The claims the template reads. */
  readonly claims: readonly string[];
}

/** A scalar a claim may hold for a template. */
export type ClaimScalar = string | number;

/** Longest string claim value a template takes (a customer id, a region, a name). */
export const MAX_CLAIM_VALUE_CHARS = 256;

const CLAIM_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
/** Names that would read an object's inherited members rather than a claim. */
const PROTOTYPE_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'hasOwnProperty']);

export interface ParseOptions {
  /** What the template is, for the error (`EMBED_SUPERSET_RLS`). */
  name: string;
  /**
   * The text is SQL: a placeholder inside a quoted string, a quoted identifier or a comment is
   * refused (the renderer quotes values itself; inside quotes its quoting would be undone).
   */
  sql?: boolean;
}

/**
 * Parses `{claim}` placeholders; `{{` and `}}` are literal braces. Throws a `TypeError` naming
 * `options.name` for an unclosed brace, a bad or inherited claim name, no placeholder at all
 * (a template that reads no claim is the same for every customer), and with `sql` a placeholder
 * inside quotes or a comment.
 */
export function parseClaimTemplate(source: string, options: ParseOptions): ClaimTemplate {
  const { name } = options;
  if (typeof source !== 'string' || source.trim() === '') throw new TypeError(`${name} must be a non-empty template such as "customer_id = {org_id}"`);
  if (source.length > 4096) throw new TypeError(`${name} is longer than 4096 characters`);
  const parts: ({ text: string } | { claim: string })[] = [];
  let text = '';
  let quote: "'" | '"' | '`' | undefined;
  let comment: 'line' | 'block' | undefined;
  for (let i = 0; i < source.length; i++) {
    const ch = source[i]!;
    const next = source[i + 1];
    if (ch === '{' && next === '{') {
      text += '{';
      i++;
      continue;
    }
    if (ch === '}' && next === '}') {
      text += '}';
      i++;
      continue;
    }
    if (ch === '}') throw new TypeError(`${name}: a "}" without its "{" at character ${i + 1} (write "}}" for a literal brace)`);
    if (ch === '{') {
      const end = source.indexOf('}', i);
      if (end < 0) throw new TypeError(`${name}: a "{" without its "}" at character ${i + 1}`);
      const claim = source.slice(i + 1, end);
      if (!CLAIM_NAME.test(claim) || PROTOTYPE_KEYS.has(claim)) {
        throw new TypeError(`${name}: "{${claim.slice(0, 64)}}" is not a claim name (A-Z a-z 0-9 _, not starting with a digit, at most 64)`);
      }
      if (options.sql === true && (quote !== undefined || comment !== undefined)) {
        throw new TypeError(
          `${name}: {${claim}} is inside ${comment !== undefined ? 'a comment' : 'quotes'}; write it bare (customer_id = {${claim}}): the BFF quotes string values itself`,
        );
      }
      if (text !== '') parts.push({ text });
      text = '';
      parts.push({ claim });
      i = end;
      continue;
    }
    text += ch;
    if (options.sql !== true) continue;
    if (comment === 'line') {
      if (ch === '\n') comment = undefined;
    } else if (comment === 'block') {
      if (ch === '*' && next === '/') {
        text += '/';
        i++;
        comment = undefined;
      }
    } else if (quote !== undefined) {
      if (ch === quote) quote = undefined;
    } else if (ch === "'" || ch === '"' || ch === '`') {
      quote = ch;
    } else if (ch === '-' && next === '-') {
      comment = 'line';
    } else if (ch === '/' && next === '*') {
      comment = 'block';
    }
  }
  if (options.sql === true && quote !== undefined) throw new TypeError(`${name}: a quote (${quote}) is never closed`);
  if (text !== '') parts.push({ text });
  const claims = [...new Set(parts.flatMap((part) => ('claim' in part ? [part.claim] : [])))];
  if (claims.length === 0) throw new TypeError(`${name} reads no session claim: write the customer's claim in braces, e.g. customer_id = {org_id}`);
  return { source, parts, claims };
}

const refuse = (claim: string, why: string) =>
  new BffError('forbidden', `session claim "${claim}" ${why}: it cannot be used in a locked filter (row-level security or parameter)`);

/** Whether `text` holds a control character (C0, DEL, C1) or a line or paragraph separator. */
export function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || (code >= 0x7f && code <= 0x9f) || code === 0x2028 || code === 0x2029) return true;
  }
  return false;
}
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * The value of `claim` in the session, when it is one a locked filter can take: a string of at
 * most {@link MAX_CLAIM_VALUE_CHARS} characters without control characters, backslashes or lone
 * surrogates, or a finite number (an integer only within ±2^53, where no two customers' ids can
 * round to one value). Anything else (missing, null, boolean, object, array, a huge or odd value)
 * is a 403: a filter rendered from it could show another customer's rows.
 */
export function claimValue(claims: Readonly<Record<string, unknown>>, claim: string): ClaimScalar {
  if (!Object.hasOwn(claims, claim)) throw refuse(claim, 'is missing');
  const value = claims[claim];
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw refuse(claim, 'is not a finite number');
    if (Number.isInteger(value) && !Number.isSafeInteger(value)) throw refuse(claim, 'is an integer beyond 2^53 (it would be rounded)');
    return value;
  }
  if (typeof value !== 'string')
    throw refuse(claim, `is ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}, not a string or number`);
  if (value === '') throw refuse(claim, 'is empty');
  if (value.length > MAX_CLAIM_VALUE_CHARS) throw refuse(claim, `is longer than ${MAX_CLAIM_VALUE_CHARS} characters`);
  if (hasControlCharacter(value)) throw refuse(claim, 'holds a control character');
  // MySQL (and PostgreSQL without standard_conforming_strings) read a backslash in a literal as an escape.
  if (value.includes('\\')) throw refuse(claim, 'holds a backslash');
  if (LONE_SURROGATE.test(value)) throw refuse(claim, 'is not well-formed Unicode');
  return value;
}

/**
 * A claim value as an SQL literal: a number as itself (a negative one in parentheses, so
 * `a-{x}` cannot become the comment `a--5`), a string in single quotes with each `'` doubled
 * (the SQL standard's only escape; values with backslashes never get here).
 */
export function sqlLiteral(value: ClaimScalar): string {
  if (typeof value === 'number') {
    const text = String(value);
    return value < 0 || Object.is(value, -0) ? `(${text})` : text;
  }
  return `'${value.replaceAll("'", "''")}'`;
}

/** Renders `template` for a session: each placeholder becomes `render(claimValue(claims, name))`. */
export function renderClaimTemplate(template: ClaimTemplate, claims: Readonly<Record<string, unknown>>, render: (value: ClaimScalar) => string): string {
  let out = '';
  for (const part of template.parts) out += 'text' in part ? part.text : render(claimValue(claims, part.claim));
  return out;
}

/** `template` rendered as SQL: every claim value an {@link sqlLiteral}. */
export const renderSqlTemplate = (template: ClaimTemplate, claims: Readonly<Record<string, unknown>>): string =>
  renderClaimTemplate(template, claims, sqlLiteral);
