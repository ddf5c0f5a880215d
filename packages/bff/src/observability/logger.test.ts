import { describe, expect, it } from 'vitest';
import { createJsonLogger, describeError, redactLine, withRedaction, type LogFields } from './logger.js';

describe('createJsonLogger', () => {
  it('writes one JSON line with time, level, message and fields', () => {
    const lines: string[] = [];
    const logger = createJsonLogger({ write: (l) => lines.push(l), now: () => 0 });
    logger.info('hello', { status: 200 });
    expect(JSON.parse(lines[0]!)).toEqual({ time: '1970-01-01T00:00:00.000Z', level: 'info', msg: 'hello', status: 200 });
  });

  it('drops lines below its level', () => {
    const lines: string[] = [];
    const logger = createJsonLogger({ write: (l) => lines.push(l), level: 'warn' });
    logger.info('no');
    logger.warn('yes');
    logger.error('yes');
    expect(lines).toHaveLength(2);
  });

  it('has a debug method only at level debug', () => {
    const lines: string[] = [];
    expect(createJsonLogger({ write: (l) => lines.push(l) }).debug).toBeUndefined();
    const logger = createJsonLogger({ write: (l) => lines.push(l), level: 'debug', now: () => 0 });
    logger.debug!('detail', { eyJ: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl' });
    expect(JSON.parse(lines[0]!)).toEqual({ time: '1970-01-01T00:00:00.000Z', level: 'debug', msg: 'detail', eyJ: '[redacted-jwt]' });
  });

  it('replaces every known secret wherever it appears', () => {
    const lines: string[] = [];
    const logger = createJsonLogger({ write: (l) => lines.push(l), secrets: ['sekrit-api-token-123'] });
    logger.error('failed with sekrit-api-token-123', { header: 'Token sekrit-api-token-123', nested: { x: 'sekrit-api-token-123' } });
    expect(lines[0]).not.toContain('sekrit-api-token-123');
    expect(lines[0]).toContain('[redacted]');
  });

  it('survives fields that cannot be serialised', () => {
    const lines: string[] = [];
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    createJsonLogger({ write: (l) => lines.push(l) }).error('x', { cyclic });
    expect(JSON.parse(lines[0]!).logError).toBe('unserialisable fields');
  });
});

describe('redactLine', () => {
  it('redacts anything shaped like a JWT', () => {
    const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl';
    expect(redactLine(`bearer ${jwt} end`, [])).toBe('bearer [redacted-jwt] end');
  });

  it('redacts a whole compact JWE (an embed token: five parts, the second empty), not only its first three', () => {
    const jwe = 'eyJhbGciOiJkaXIiLCJlbmMiOiJBMjU2R0NNIiwia2lkIjoiazEifQ..aXZpdml2aXZpdg.Y2lwaGVydGV4dA.dGFndGFndGFn';
    expect(redactLine(`{"token":"${jwe}","n":1}`, [])).toBe('{"token":"[redacted-jwt]","n":1}');
  });
});

describe('describeError', () => {
  it('keeps name, code, status and causes', () => {
    const cause = Object.assign(new Error('inner'), { code: 'timeout', status: 504 });
    expect(describeError(new Error('outer', { cause }))).toEqual({
      name: 'Error',
      message: 'outer',
      cause: { name: 'Error', message: 'inner', code: 'timeout', status: 504 },
    });
  });
});

describe('withRedaction', () => {
  it('redacts known secrets and JWTs in the message and nested fields before any logger sees them', () => {
    const seen: unknown[] = [];
    const sink = { info: (m: string, f?: object) => seen.push(m, f), warn: () => undefined, error: () => undefined };
    const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl';
    withRedaction(sink, ['top-secret-token']).info('top-secret-token here', { a: [{ b: `x ${jwt}` }], n: 5 });
    expect(seen).toEqual(['[redacted] here', { a: [{ b: 'x [redacted-jwt]' }], n: 5 }]);
  });

  it('wraps debug only when the logger has one', () => {
    const plain = { info: () => undefined, warn: () => undefined, error: () => undefined };
    expect(withRedaction(plain, []).debug).toBeUndefined();
    const seen: unknown[] = [];
    const withDebug = { ...plain, debug: (m: string, f?: LogFields) => seen.push(m, f) };
    withRedaction(withDebug, ['top-secret-token']).debug!('request', { note: 'top-secret-token' });
    expect(seen).toEqual(['request', { note: '[redacted]' }]);
  });
});
