import { describe, expect, it } from 'vitest';
import { BffError } from '../errors/bff-error.js';
import { claimValue, parseClaimTemplate, renderSqlTemplate, sqlLiteral, MAX_CLAIM_VALUE_CHARS } from './claim-template.js';

const sql = (template: string) => parseClaimTemplate(template, { name: 'EMBED_SUPERSET_RLS', sql: true });
const render = (template: string, claims: Record<string, unknown>) => renderSqlTemplate(sql(template), claims);

/** The 403 a claim value is refused with. */
function refused(template: string, claims: Record<string, unknown>): BffError {
  let caught: unknown;
  try {
    render(template, claims);
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(BffError);
  expect((caught as BffError).code).toBe('forbidden');
  return caught as BffError;
}

describe('renderSqlTemplate', () => {
  it('quotes strings with doubled quotes and keeps JSON numbers numbers', () => {
    expect(render('customer_id = {org_id}', { org_id: 'acme' })).toBe("customer_id = 'acme'");
    expect(render('customer_id = {org_id}', { org_id: 42 })).toBe('customer_id = 42');
    expect(render('customer_id = {org_id}', { org_id: '42' })).toBe("customer_id = '42'");
    expect(render('share >= {s}', { s: 0.25 })).toBe('share >= 0.25');
    expect(render('region = {region} AND c = {org_id}', { region: 'EU', org_id: 'a' })).toBe("region = 'EU' AND c = 'a'");
    expect(render('x = {{literal}} AND c = {org_id}', { org_id: 'a' })).toBe("x = {literal} AND c = 'a'");
  });

  it.each([
    ["x' OR '1'='1", "customer_id = 'x'' OR ''1''=''1'"],
    ["'; DROP TABLE sales; --", "customer_id = '''; DROP TABLE sales; --'"],
    ["O'Brien", "customer_id = 'O''Brien'"],
    ['x" OR "1"="1', `customer_id = 'x" OR "1"="1'`],
    ['*/ OR 1=1 /*', "customer_id = '*/ OR 1=1 /*'"],
    ['ünïcödé ✓ 𝔘', "customer_id = 'ünïcödé ✓ 𝔘'"],
  ])('a hostile string stays one literal: %s', (value, expected) => {
    const clause = render('customer_id = {org_id}', { org_id: value });
    expect(clause).toBe(expected);
    // Outside the literal there is nothing but the template's own text.
    expect(clause.slice(0, 'customer_id = '.length)).toBe('customer_id = ');
    expect(clause.endsWith("'")).toBe(true);
    expect(clause.slice("customer_id = '".length, -1).replaceAll("''", '')).not.toContain("'");
  });

  it('a negative number cannot make a comment of the text before it', () => {
    expect(render('a-{n}', { n: -5 })).toBe('a-(-5)');
    expect(render('a = {n}', { n: -0 })).toBe('a = (0)');
  });

  it.each([
    ['missing', {}],
    ['null', { org_id: null }],
    ['a boolean', { org_id: true }],
    ['an object', { org_id: { toString: 'x' } }],
    ['an array', { org_id: ['a', 'b'] }],
    ['empty', { org_id: '' }],
    ['oversized', { org_id: 'a'.repeat(MAX_CLAIM_VALUE_CHARS + 1) }],
    ['NUL', { org_id: 'acme\u0000' }],
    ['a newline', { org_id: 'acme\n OR 1=1' }],
    ['DEL', { org_id: 'a\u007f' }],
    ['a C1 control', { org_id: 'a\u0085' }],
    ['a line separator', { org_id: 'a\u2028b' }],
    ['a backslash (MySQL escapes)', { org_id: "x\\' OR 1=1 -- " }],
    ['a lone surrogate', { org_id: 'a\ud800' }],
    ['NaN', { org_id: Number.NaN }],
    ['Infinity', { org_id: Number.POSITIVE_INFINITY }],
    ['an integer past 2^53', { org_id: 2 ** 53 + 2 }],
  ])('refuses a claim that is %s with 403, never a widened clause', (_name, claims) => {
    const error = refused('customer_id = {org_id}', claims);
    expect(error.message).toContain('"org_id"');
  });

  it('reads only own claims, never inherited members', () => {
    const claims = Object.create({ org_id: 'inherited' }) as Record<string, unknown>;
    refused('customer_id = {org_id}', claims);
    expect(() => claimValue(JSON.parse('{"__proto__": "x"}') as Record<string, unknown>, 'org_id')).toThrow(BffError);
  });

  it('a value at the size limit is taken', () => {
    expect(sqlLiteral('a'.repeat(MAX_CLAIM_VALUE_CHARS))).toHaveLength(MAX_CLAIM_VALUE_CHARS + 2);
    expect(claimValue({ id: 'a'.repeat(MAX_CLAIM_VALUE_CHARS) }, 'id')).toHaveLength(MAX_CLAIM_VALUE_CHARS);
  });
});

describe('parseClaimTemplate', () => {
  it.each([
    ['', /non-empty/],
    ['customer_id = 1', /reads no session claim/],
    ['customer_id = {org_id', /without its "}"/],
    ['customer_id = org_id}', /without its "{"/],
    ['customer_id = {}', /not a claim name/],
    ['customer_id = {org id}', /not a claim name/],
    ['customer_id = {1abc}', /not a claim name/],
    ['customer_id = {__proto__}', /not a claim name/],
    ['customer_id = {constructor}', /not a claim name/],
    ["customer_id = '{org_id}'", /inside quotes/],
    ['customer_id = "{org_id}"', /inside quotes/],
    ['customer_id = 1 -- {org_id}', /inside a comment/],
    ['customer_id = 1 /* {org_id} */', /inside a comment/],
    ["customer_id = 'x", /never closed/],
    ['x'.repeat(4097), /longer than 4096/],
  ])('refuses %j', (template, message) => {
    expect(() => sql(template)).toThrow(message);
  });

  it('names the claims it reads, once each', () => {
    expect(sql("a = {org_id} AND b = {org_id} AND r = {region} AND s = 'lit' -- c\n AND t = {team}").claims).toEqual(['org_id', 'region', 'team']);
  });

  it('a placeholder after a closed quote or comment is fine', () => {
    expect(render("name = 'x' AND c = {org_id} /* c */ AND d = {org_id}", { org_id: 'a' })).toBe("name = 'x' AND c = 'a' /* c */ AND d = 'a'");
  });
});
