import { describe, expect, it } from 'vitest';
import { VARIABLE_LIMITS, copyVariables, variablesProblem } from './variables.js';

const L = VARIABLE_LIMITS;
const nest = (depth: number): unknown => (depth === 0 ? 'x' : [nest(depth - 1)]);

describe('variablesProblem', () => {
  it('accepts every documented shape: scalars, a multi-select array, a JSON object, dotted names (date range picker)', () => {
    expect(
      variablesProblem(
        {
          region: 'EU',
          seats: 5,
          trial: false,
          none: null,
          regions: ['EU', 'US'],
          var_5: { from: '2026-01-01', to: '2026-01-31', ids: [1, 2] },
          'date_range_picker.startDate': '2026-01-01',
        },
        L,
      ),
    ).toBeUndefined();
    expect(variablesProblem({}, L)).toBeUndefined();
    expect(variablesProblem(Object.assign(Object.create(null) as object, { a: 1 }), L)).toBeUndefined();
  });

  it.each([
    [null, /must be a JSON object/],
    [[], /must be a JSON object/],
    ['x', /must be a JSON object/],
    [new Date(0), /must be a JSON object/],
    [{ a: Number.NaN }, /a is not a JSON value/],
    [{ a: Number.POSITIVE_INFINITY }, /a is not a JSON value/],
    [{ a: undefined }, /a is not a JSON value/],
    [{ a: () => 1 }, /a is not a JSON value/],
    [{ a: 1n }, /a is not a JSON value/],
    [{ a: [new Date(0)] }, /a\[0\] is not a JSON value/],
    [{ a: new Map() }, /a is not a JSON value/],
    [JSON.parse('{"__proto__":1}'), /name __proto__ is not allowed/],
    [{ constructor: 1 }, /name constructor is not allowed/],
    [{ a: JSON.parse('{"__proto__":{"polluted":1}}') }, /a has the key __proto__/],
    [{ a: { b: { prototype: 1 } } }, /a\.b has the key prototype/],
    [{ '': 1 }, /maxNameLength/],
    [{ ['n'.repeat(L.maxNameLength + 1)]: 1 }, /maxNameLength/],
    [Object.fromEntries(Array.from({ length: L.maxVariables + 1 }, (_, i) => [`v${i}`, 1])), /maxVariables/],
    [{ a: nest(L.maxDepth + 1) }, /maxDepth/],
    [{ a: Array.from({ length: L.maxArrayLength + 1 }, () => 1) }, /a has more than 500 items \(maxArrayLength\)/],
    [{ a: 's'.repeat(L.maxStringLength + 1) }, /a is longer than 2000 characters \(maxStringLength\)/],
    [{ a: { ['k'.repeat(L.maxStringLength + 1)]: 1 } }, /maxStringLength/],
    [Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`v${i}`, 's'.repeat(L.maxStringLength)])), /maxEncodedLength/],
  ])('refuses %#, naming the limit', (value, message) => {
    expect(variablesProblem(value, L)).toMatch(message);
  });

  it('stops at the depth limit on a cycle instead of looping', () => {
    const a: unknown[] = [];
    a.push(a);
    expect(variablesProblem({ a }, L)).toMatch(/maxDepth/);
  });

  it('accepts exactly the limits', () => {
    expect(
      variablesProblem({ a: nest(L.maxDepth), b: Array.from({ length: L.maxArrayLength }, () => 0), c: 's'.repeat(L.maxStringLength) }, L),
    ).toBeUndefined();
  });

  it('is self-contained: it works as inlined source text (the emulator page)', () => {
    const inlined = new Function(`return (${variablesProblem.toString()})`)() as typeof variablesProblem;
    expect(inlined({ regions: ['EU'] }, L)).toBeUndefined();
    expect(inlined({ a: nest(9) }, L)).toMatch(/maxDepth/);
  });
});

describe('copyVariables', () => {
  it('is a deep copy, never the same object', () => {
    const original = { regions: ['EU'], range: { from: 'a' } };
    const copy = copyVariables(original);
    expect(copy).toEqual(original);
    expect(copy.regions).not.toBe(original.regions);
  });
});
