import { describe, expect, it } from 'vitest';
import { parseDashboardMessage, parseHostMessage } from './messages.js';

describe('parseDashboardMessage', () => {
  it('accepts each documented iframe event', () => {
    expect(parseDashboardMessage({ event: 'dashboardReadyToLoad', detail: { dashboardId: 'd' } })).toEqual({
      event: 'dashboardReadyToLoad',
      detail: { dashboardId: 'd' },
    });
    expect(parseDashboardMessage({ event: 'dashboardLoaded', detail: { dashboardId: 'd', dashboardHeight: 400, loadTime: 12 } })?.event).toBe(
      'dashboardLoaded',
    );
    expect(parseDashboardMessage({ event: 'dashboardResized', detail: { dashboardHeight: 10 } })?.event).toBe('dashboardResized');
    expect(parseDashboardMessage({ event: 'tokenExpired', detail: { dashboardId: 'd' } })?.event).toBe('tokenExpired');
    expect(parseDashboardMessage({ event: 'variableUpdated', detail: { varName: 'region', newValue: 'EU' } })?.event).toBe('variableUpdated');
  });

  it('keeps a variable update of any JSON shape whole: a multi-select array, a JSON object', () => {
    for (const newValue of [['EU', 'US'], { from: '2026-01-01', to: '2026-01-31' }, [], null]) {
      expect(parseDashboardMessage({ event: 'variableUpdated', detail: { varName: 'regions', newValue } })).toEqual({
        event: 'variableUpdated',
        detail: { varName: 'regions', newValue },
      });
    }
  });

  it('drops extra fields so nothing unvalidated travels on', () => {
    const parsed = parseDashboardMessage({ event: 'tokenExpired', detail: { dashboardId: 'd', token: 'secret' } });
    expect(parsed).toEqual({ event: 'tokenExpired', detail: { dashboardId: 'd' } });
  });

  it.each([
    null,
    undefined,
    'dashboardLoaded',
    42,
    [],
    { event: 'dashboardLoaded' },
    { event: 'dashboardLoaded', detail: null },
    { event: 'dashboardLoaded', detail: { dashboardId: 'd', dashboardHeight: '400', loadTime: 1 } },
    { event: 'dashboardResized', detail: { dashboardHeight: Number.NaN } },
    { event: 'dashboardResized', detail: { dashboardHeight: Number.POSITIVE_INFINITY } },
    { event: 'variableUpdated', detail: { varName: 'x', newValue: Number.NaN } },
    { event: 'variableUpdated', detail: { varName: 'x', newValue: undefined } },
    { event: 'variableUpdated', detail: { varName: 'x', newValue: [[[[['too deep']]]]] } },
    { event: 'variableUpdated', detail: { varName: 'x', newValue: Array.from({ length: 501 }, () => 'EU') } },
    { event: 'variableUpdated', detail: { varName: 'x', newValue: 'x'.repeat(2001) } },
    { event: 'variableUpdated', detail: { varName: 'x', newValue: JSON.parse('{"__proto__":{"polluted":true}}') as unknown } },
    { event: 'variableUpdated', detail: { varName: '__proto__', newValue: 'EU' } },
    { event: 'variableUpdated', detail: { varName: 5, newValue: 'EU' } },
    { event: 'updateToken', detail: { token: 't' } },
    { event: '__proto__', detail: {} },
  ])('returns undefined for malformed data %#', (data) => {
    expect(parseDashboardMessage(data)).toBeUndefined();
  });
});

describe('parseHostMessage', () => {
  it('accepts updateToken and updateVariables', () => {
    expect(parseHostMessage({ event: 'updateToken', detail: { token: 'abc' } })).toEqual({ event: 'updateToken', detail: { token: 'abc' } });
    expect(parseHostMessage({ event: 'updateVariables', detail: { variables: { region: 'EU', n: 1, on: true, none: null } } })).toEqual({
      event: 'updateVariables',
      detail: { variables: { region: 'EU', n: 1, on: true, none: null } },
    });
    const variables = { regions: ['EU', 'US'], var_5: { a: [1, { b: 'c' }] } };
    expect(parseHostMessage({ event: 'updateVariables', detail: { variables } })).toEqual({ event: 'updateVariables', detail: { variables } });
  });

  it.each([
    { event: 'updateToken', detail: { token: '' } },
    { event: 'updateToken', detail: { token: 5 } },
    { event: 'updateVariables', detail: { variables: [] } },
    { event: 'updateVariables', detail: { variables: { a: Number.NaN } } },
    { event: 'updateVariables', detail: { variables: { a: ['EU'], b: 'x'.repeat(2001) } } },
    { event: 'updateVariables', detail: { variables: { a: [[[[['too deep']]]]] } } },
    { event: 'updateVariables', detail: { variables: JSON.parse('{"__proto__":{"polluted":true}}') as unknown } },
    { event: 'tokenExpired', detail: { dashboardId: 'd' } },
    'updateToken',
  ])('returns undefined for malformed data %#', (data) => {
    expect(parseHostMessage(data)).toBeUndefined();
  });
});
