import { describe, expect, it } from 'vitest';
import { createEmulator } from '../emulator.js';
import { callApi, group } from '../../test/support/call-api.js';

const long = 'x'.repeat(257);

describe('field validation of get-or-create and update', () => {
  it.each([
    ['name missing', { user_group_id: 'a' }],
    ['user_group_id missing', { name: 'A' }],
    ['name not a string', { name: 5, user_group_id: 'a' }],
    ['name empty', { name: '', user_group_id: 'a' }],
    ['name blank', { name: '   ', user_group_id: 'a' }],
    ['name too long', { name: long, user_group_id: 'a' }],
    ['user_group_id a number', { name: 'A', user_group_id: 42 }],
    ['user_group_id empty', { name: 'A', user_group_id: '' }],
    ['user_group_id too long', { name: 'A', user_group_id: long }],
    ['mapping an array', group('a', { mapping: ['x'] })],
    ['mapping null', group('a', { mapping: null })],
    ['mapping a string', group('a', { mapping: 'x' })],
    ['mapping value a number', group('a', { mapping: { s: 1 } })],
    ['mapping value an object', group('a', { mapping: { s: { t: 'x' } } })],
    ['mapping empty key', group('a', { mapping: { '': 'x' } })],
    ['mapping value too long', group('a', { mapping: { s: long } })],
    ['mapping too many entries', group('a', { mapping: Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`k${i}`, 'v'])) })],
    ['properties an array', group('a', { properties: [1] })],
    ['properties null', group('a', { properties: null })],
    ['properties a string', group('a', { properties: 'x' })],
    ['an unknown field', group('a', { userGroupId: 'a' })],
  ])('answers 400 invalid_field when %s', async (_, body) => {
    const emulator = createEmulator();
    for (const method of ['GET', 'PUT']) {
      const { status, body: answer } = await callApi(emulator.app, method, { body });
      expect(status).toBe(400);
      expect(answer).toEqual({ success: 0, error: { code: 'invalid_field', message: expect.any(String) } });
    }
    expect(emulator.stats().groups).toBe(0);
  });

  it.each([
    ['no current_token', {}],
    ['current_token a number', { current_token: 1 }],
    ['current_token empty', { current_token: '' }],
    ['current_token huge', { current_token: 'x'.repeat(600) }],
    ['an extra field', { current_token: 't', user_group_id: 'a' }],
  ])('answers 400 invalid_field to a rotate with %s', async (_, body) => {
    const { app } = createEmulator();
    const { status, body: answer } = await callApi(app, 'POST', { body });
    expect(status).toBe(400);
    expect(answer.error.code).toBe('invalid_field');
  });
});

describe('body handling', () => {
  it.each([
    ['not JSON', '{"name":'],
    ['a JSON array', '[]'],
    ['a JSON string', '"x"'],
    ['JSON null', 'null'],
    ['empty', ''],
    ['whitespace', '  \n'],
  ])('answers 400 bad_json when the body is %s', async (_, raw) => {
    const { app } = createEmulator();
    for (const method of ['GET', 'PUT', 'POST']) {
      const { status, body } = await callApi(app, method, { raw });
      expect(status).toBe(400);
      expect(body).toEqual({ success: 0, error: { code: 'bad_json', message: expect.any(String) } });
    }
  });

  it('answers 400 bad_json for bytes that are not UTF-8', async () => {
    const { app } = createEmulator();
    const raw = new Uint8Array([0x7b, 0x22, 0x6e, 0xff, 0xfe, 0x22, 0x7d]);
    for (const method of ['GET', 'PUT']) {
      const { status, body } = await callApi(app, method, { raw });
      expect(status).toBe(400);
      expect(body.error).toEqual({ code: 'bad_json', message: 'request body is not valid UTF-8' });
    }
  });

  it.each([
    ['missing', null],
    ['text/plain', 'text/plain'],
    ['form', 'application/x-www-form-urlencoded'],
    ['json with a latin1 charset', 'application/json; charset=iso-8859-1'],
    ['json-ish', 'application/jsonp'],
  ])('answers 415 unsupported_media_type when Content-Type is %s', async (_, contentType) => {
    const { app } = createEmulator();
    for (const method of ['GET', 'PUT', 'POST']) {
      const { status, body } = await callApi(app, method, { contentType, body: group('a') });
      expect(status).toBe(415);
      expect(body.error.code).toBe('unsupported_media_type');
    }
  });

  it('accepts application/json with charset=utf-8 in any case', async () => {
    const { app } = createEmulator();
    const { status } = await callApi(app, 'GET', { contentType: 'Application/JSON; Charset=UTF-8', body: group('a') });
    expect(status).toBe(200);
  });

  it('answers 413 payload_too_large above maxBodyBytes, for every method', async () => {
    const { app } = createEmulator({ maxBodyBytes: 1024 });
    const body = group('a', { properties: { blob: 'x'.repeat(2000) } });
    for (const method of ['GET', 'PUT', 'POST']) {
      const { status, body: answer } = await callApi(app, method, { body });
      expect(status).toBe(413);
      expect(answer.error.code).toBe('payload_too_large');
    }
    const fits = await callApi(app, 'GET', { body: group('a', { properties: { blob: 'x'.repeat(800) } }) });
    expect(fits.status).toBe(200);
  });

  it('refuses the default 64 KiB limit plus one byte', async () => {
    const { app } = createEmulator();
    const base = JSON.stringify(group('a', { properties: { blob: '' } }));
    const raw = JSON.stringify(group('a', { properties: { blob: 'x'.repeat(64 * 1024 + 1 - base.length) } }));
    expect(new TextEncoder().encode(raw).byteLength).toBe(64 * 1024 + 1);
    expect((await callApi(app, 'PUT', { raw })).status).toBe(413);
  });
});

describe('hostile input never crashes it or answers 500', () => {
  it('stores __proto__ and constructor keys as plain data without polluting prototypes', async () => {
    const { app, resolveToken } = createEmulator();
    const raw =
      '{"name":"P","user_group_id":"p","mapping":{"__proto__":"ds"},"properties":{"__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}}}}';
    const { status, body } = await callApi(app, 'GET', { raw });
    expect(status).toBe(200);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype.hasOwnProperty.call(body.user_group.properties, '__proto__')).toBe(true);
    const view = resolveToken(body.user_group.token);
    expect(Object.keys(view!.properties)).toEqual(['__proto__', 'constructor']);
  });

  it('accepts a group named __proto__ and keeps it apart from others', async () => {
    const emulator = createEmulator();
    expect((await callApi(emulator.app, 'GET', { body: group('__proto__') })).status).toBe(200);
    expect((await callApi(emulator.app, 'GET', { body: group('constructor') })).body.new_user_group).toBe(true);
    expect(emulator.stats().groups).toBe(2);
  });

  it('answers huge numbers without failing', async () => {
    const { app } = createEmulator();
    const { status, body } = await callApi(app, 'GET', {
      raw: '{"name":"N","user_group_id":"n","properties":{"big":1e400,"small":-1e400,"int":123456789012345678901234567890}}',
    });
    expect(status).toBe(200);
    expect(body.user_group.properties).toEqual({ big: null, small: null, int: 1.2345678901234568e29 });
  });

  it('refuses deep nesting with invalid_field', async () => {
    const { app } = createEmulator();
    const deep = `{"name":"D","user_group_id":"d","properties":${'{"a":'.repeat(40)}1${'}'.repeat(40)}}`;
    const { status, body } = await callApi(app, 'GET', { raw: deep });
    expect(status).toBe(400);
    expect(body.error.code).toBe('invalid_field');
  });

  it('refuses pathological nesting that fills the whole body limit', async () => {
    const { app } = createEmulator();
    const raw = `${'['.repeat(30_000)}${']'.repeat(30_000)}`;
    const { status } = await callApi(app, 'PUT', { raw });
    expect(status).toBe(400);
  });

  it('handles control characters, lone surrogates escaped and emoji in strings', async () => {
    const { app } = createEmulator();
    const { status, body } = await callApi(app, 'GET', { raw: '{"name":"\\u0000\\ud800 \u{1F600}","user_group_id":"a\\tb"}' });
    expect(status).toBe(200);
    expect(body.user_group.provided_id).toBe('a\tb');
    expect(body.user_group.name).toBe('\u0000\ud800 \u{1F600}');
  });
});
