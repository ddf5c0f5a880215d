import { describe, expect, it } from 'vitest';
import { parseVariables } from './parse-variables.js';

describe('parseVariables', () => {
  it('accepts a JSON object or an object of plain values', () => {
    expect(parseVariables('{"a":"x","b":1,"c":true,"d":null}')).toEqual({ a: 'x', b: 1, c: true, d: null });
    expect(parseVariables({ a: 1 })).toEqual({ a: 1 });
    expect(parseVariables(undefined)).toEqual({});
    expect(parseVariables('')).toEqual({});
  });

  it.each(['{', 'null', '[]', '"x"', '42', '{"a":{}}', '{"a":[1]}', '{"a":1e999}'])('rejects %s', (text) => {
    expect(() => parseVariables(text)).toThrow(/variables must be/);
  });
});
