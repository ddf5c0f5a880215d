import { VARIABLE_LIMITS, parseHostMessage, variablesProblem } from '@embedded-dashboard/protocol';
import { describe, expect, it } from 'vitest';
import { pageParseHostMessage } from './parse-host-message.js';

const samples: unknown[] = [
  { event: 'updateToken', detail: { token: 'abc' } },
  { event: 'updateToken', detail: { token: 'abc', extra: 'dropped' } },
  { event: 'updateVariables', detail: { variables: { region: 'EU', n: 1, on: true, none: null } } },
  { event: 'updateVariables', detail: { variables: {} } },
  { event: 'updateToken', detail: { token: '' } },
  { event: 'updateToken', detail: { token: 5 } },
  { event: 'updateToken', detail: null },
  { event: 'updateToken' },
  { event: 'updateVariables', detail: { variables: [] } },
  { event: 'updateVariables', detail: { variables: null } },
  { event: 'updateVariables', detail: { variables: { a: [1] } } },
  { event: 'updateVariables', detail: { variables: { a: Number.POSITIVE_INFINITY } } },
  { event: 'updateVariables', detail: { variables: { a: { b: 1 } } } },
  { event: 'updateVariables', detail: { variables: { regions: ['EU', 'US'] } } },
  { event: 'updateVariables', detail: { variables: { a: [[[[['too deep']]]]] } } },
  { event: 'updateVariables', detail: { variables: { a: Array.from({ length: 501 }, () => 1) } } },
  { event: 'updateVariables', detail: { variables: { a: 'x'.repeat(2001) } } },
  { event: 'updateVariables', detail: { variables: JSON.parse('{"__proto__":{"polluted":true}}') as unknown } },
  { event: 'updateVariables', detail: { variables: { a: { constructor: 1 } } } },
  { event: 'updateVariables', detail: { variables: { a: Number.NaN } } },
  { event: 'tokenExpired', detail: { dashboardId: 'd' } },
  { event: '__proto__', detail: {} },
  { event: 42, detail: {} },
  [],
  'updateToken',
  null,
  undefined,
  42,
];

describe('pageParseHostMessage', () => {
  it.each(samples.map((sample, i) => [i, sample]))('answers sample %i exactly as the protocol parser does', (_, sample) => {
    expect(pageParseHostMessage(sample, (v) => variablesProblem(v, VARIABLE_LIMITS))).toEqual(parseHostMessage(sample));
  });

  it('accepts what it should (so the equality above is not only about undefined)', () => {
    expect(samples.filter((sample) => pageParseHostMessage(sample, (v) => variablesProblem(v, VARIABLE_LIMITS)) !== undefined)).toHaveLength(7);
  });
});
