import { describe, expect, it } from 'vitest';
import { parseVariables } from './parse-variables.js';

describe('parseVariables', () => {
  it('accepts a JSON object or an object of every documented shape', () => {
    expect(parseVariables('{"a":"x","b":1,"c":true,"d":null}')).toEqual({ a: 'x', b: 1, c: true, d: null });
    expect(parseVariables('{"regions":["EU","US"],"var_5":{"from":"2026-01-01"}}')).toEqual({ regions: ['EU', 'US'], var_5: { from: '2026-01-01' } });
    expect(parseVariables({ a: 1 })).toEqual({ a: 1 });
    expect(parseVariables(undefined)).toEqual({});
    expect(parseVariables('')).toEqual({});
  });

  it('returns a copy: a later change to the object set is not taken as set', () => {
    const set = { regions: ['EU'] };
    const parsed = parseVariables(set);
    set.regions.push('US');
    expect(parsed).toEqual({ regions: ['EU'] });
  });

  it.each([
    ['{', /variables must be JSON/],
    ['null', /must be a JSON object/],
    ['[]', /must be a JSON object/],
    ['"x"', /must be a JSON object/],
    ['42', /must be a JSON object/],
    ['{"a":1e999}', /a is not a JSON value/],
    ['{"__proto__":{"x":1}}', /__proto__ is not allowed/],
    ['{"a":[[[[["deep"]]]]]}', /maxDepth/],
    [`{"a":[${Array.from({ length: 501 }, () => 1).join(',')}]}`, /maxArrayLength/],
    [`{"a":"${'x'.repeat(2001)}"}`, /maxStringLength/],
  ])('rejects %s', (text, message) => {
    expect(() => parseVariables(text)).toThrow(message);
  });

  it.each([{ a: Number.NaN }, { a: undefined }, { a: new Date(0) }] as never[])('rejects a property value that is not JSON %#', (value) => {
    expect(() => parseVariables(value)).toThrow(/not a JSON value/);
  });
});
