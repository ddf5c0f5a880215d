import { describe, expect, it } from 'vitest';
import { CUSTOM_EVENT_LIMITS, MAX_CUSTOM_EVENT_NAME_LENGTH, parseCustomEvent } from './custom-events.js';

const LIFECYCLE = ['dashboardLoaded', 'dashboardReadyToLoad'];
const parse = (data: unknown) => parseCustomEvent(data, LIFECYCLE);

describe('parseCustomEvent', () => {
  it("takes a JS Event Button's author-named event and analyticsEventFired with their JSON detail", () => {
    expect(parse({ event: 'exportClicked', detail: { customerName: 'Acme', customerProvidedId: 'acme' } })).toEqual({
      name: 'exportClicked',
      detail: { customerName: 'Acme', customerProvidedId: 'acme' },
    });
    const analytics = { user_id: '', name: 'Dashboard Page Viewed', properties: { customer_name: 'Acme' }, custom_properties: {} };
    expect(parse({ event: 'analyticsEventFired', detail: analytics })).toEqual({ name: 'analyticsEventFired', detail: analytics });
    expect(parse({ event: 'ping' })).toEqual({ name: 'ping', detail: null });
    expect(parse({ event: 'list', detail: [1, 'a', true, null] })).toEqual({ name: 'list', detail: [1, 'a', true, null] });
  });

  it('hands out a copy: the sender keeps no reference into what the host receives', () => {
    const detail = { nested: { a: 1 } };
    const parsed = parse({ event: 'x', detail })!;
    expect(parsed.detail).toEqual(detail);
    expect(parsed.detail).not.toBe(detail);
    expect((parsed.detail as { nested: object }).nested).not.toBe(detail.nested);
  });

  it('ignores lifecycle names and names that are no bounded string', () => {
    for (const event of ['dashboardLoaded', 'dashboardReadyToLoad', '', 'x'.repeat(MAX_CUSTOM_EVENT_NAME_LENGTH + 1), 42, null, undefined, {}, ['a']])
      expect(parse({ event, detail: {} })).toBeUndefined();
    expect(parse({ event: 'x'.repeat(MAX_CUSTOM_EVENT_NAME_LENGTH), detail: {} })?.name).toHaveLength(MAX_CUSTOM_EVENT_NAME_LENGTH);
  });

  it('ignores unknown shapes without throwing', () => {
    for (const data of [null, undefined, 'dashboardLoaded', 42, [], ['event'], new Date(), () => 1]) expect(parse(data)).toBeUndefined();
    const throwing = Object.defineProperty({}, 'event', {
      get() {
        throw new Error('boom');
      },
      enumerable: true,
    });
    expect(parse(throwing)).toBeUndefined();
    const trap = new Proxy(
      { event: 'x', detail: {} },
      {
        ownKeys: () => {
          throw new Error('trap');
        },
      },
    );
    expect(() => parse({ event: 'x', detail: trap })).not.toThrow();
  });

  it('refuses values that are not JSON: structured-clone-only values, functions, NaN, undefined', () => {
    for (const detail of [
      new Date(),
      new Map([[1, 2]]),
      new Set([1]),
      /x/,
      new Uint8Array(2),
      { when: new Date() },
      { f: () => 1 },
      { n: NaN },
      [Infinity],
      { u: undefined },
      1n,
    ])
      expect(parse({ event: 'x', detail })).toBeUndefined();
  });

  it('refuses prototype keys at any depth, so none reach the host', () => {
    for (const json of ['{"__proto__":{"polluted":true}}', '{"a":{"constructor":{"prototype":{}}}}', '[{"prototype":1}]'])
      expect(parse({ event: 'x', detail: JSON.parse(json) })).toBeUndefined();
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
    const nullProto = Object.assign(Object.create(null) as object, { a: 1 });
    expect(parse({ event: 'x', detail: nullProto })).toEqual({ name: 'x', detail: { a: 1 } });
  });

  it('refuses details over the size and depth limits, and cycles', () => {
    const deep = (n: number): unknown => (n ? { d: deep(n - 1) } : 1);
    expect(parse({ event: 'x', detail: deep(CUSTOM_EVENT_LIMITS.maxDepth) })).toBeDefined();
    expect(parse({ event: 'x', detail: deep(CUSTOM_EVENT_LIMITS.maxDepth + 1) })).toBeUndefined();
    expect(parse({ event: 'x', detail: 'a'.repeat(CUSTOM_EVENT_LIMITS.maxStringLength + 1) })).toBeUndefined();
    expect(parse({ event: 'x', detail: Array.from({ length: CUSTOM_EVENT_LIMITS.maxArrayLength + 1 }, () => 0) })).toBeUndefined();
    const wide = Array.from({ length: 10 }, () => 'b'.repeat(CUSTOM_EVENT_LIMITS.maxEncodedLength / 10));
    expect(parse({ event: 'x', detail: wide })).toBeUndefined();
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(parse({ event: 'x', detail: cyclic })).toBeUndefined();
    const array: unknown[] = [];
    array.push(array);
    expect(parse({ event: 'x', detail: array })).toBeUndefined();
  });
});
