import { describe, expect, it } from 'vitest';
import { dashboardSrcTemplate, originsOf } from './origins.js';

describe('origins', () => {
  it('lists both loopback names for a loopback host', () => {
    expect(originsOf('127.0.0.1', 5174)).toEqual(['http://127.0.0.1:5174', 'http://localhost:5174']);
    expect(originsOf('app.internal', 80)).toEqual(['http://app.internal:80']);
  });

  it('puts the dashboard on the other loopback name, so it is cross-site', () => {
    expect(dashboardSrcTemplate(new URL('http://127.0.0.1:5174/app'), 9000)).toBe('http://localhost:9000/iframe/{dashboard}');
    expect(dashboardSrcTemplate(new URL('http://localhost:5174/app'), 9000)).toBe('http://127.0.0.1:9000/iframe/{dashboard}');
    expect(dashboardSrcTemplate(new URL('http://[::1]:5174/app'), 9000)).toBe('http://127.0.0.1:9000/iframe/{dashboard}');
    expect(dashboardSrcTemplate(new URL('http://demo.example:5174/app'), 9000)).toBe('http://demo.example:9000/iframe/{dashboard}');
  });
});
