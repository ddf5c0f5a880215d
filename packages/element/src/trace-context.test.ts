import { describe, expect, it, vi } from 'vitest';
import { json, mount, settle, stubFetch, tokenBody, useElementTestEnvironment } from '../test/support/fixtures.js';
import { traceparent } from './trace-context.js';

useElementTestEnvironment();

/** W3C trace context level 1, version 00: lowercase hex, neither id all zeros, sampled. */
const TRACEPARENT = /^00-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-01$/;

const headersOf = (call: unknown[]) => (call[1] as { headers: Record<string, string> }).headers;

/** The first token, then the scheduled rotation (a 600 s token renewed 30 s before it ends). */
async function loadAndRotate(attributes: Record<string, string> = {}) {
  const fetch = stubFetch(json(tokenBody(600)), json(tokenBody(600)));
  const { el } = await mount({ 'refresh-margin': '30', ...attributes });
  await settle(el);
  return {
    el,
    fetch,
    rotate: async () => {
      await vi.advanceTimersByTimeAsync(570_000);
      await settle(el);
      expect(fetch).toHaveBeenCalledTimes(2);
      expect(String(fetch.mock.calls[1]![0])).toMatch(/\/embed\/token\/rotate$/);
    },
  };
}

describe('trace-context (import "@embedded-dashboard/element/trace-context")', () => {
  it('sends a fresh valid traceparent with the token request and with the rotation', async () => {
    const { el, fetch, rotate } = await loadAndRotate({ 'trace-context': '' });
    expect(el.traceContext).toBe(true);
    await rotate();
    const sent = fetch.mock.calls.map((call) => headersOf(call));
    for (const headers of sent) expect(headers).toEqual({ 'Content-Type': 'application/json', traceparent: expect.stringMatching(TRACEPARENT) });
    // A new trace and a new parent for each request.
    expect(new Set(sent.map((h) => h.traceparent!.slice(3, 35))).size).toBe(2);
    expect(new Set(sent.map((h) => h.traceparent!.slice(36, 52))).size).toBe(2);
  });

  it('sends none without the attribute, with the module loaded', async () => {
    const { el, fetch, rotate } = await loadAndRotate();
    expect(el.traceContext).toBe(false);
    await rotate();
    for (const call of fetch.mock.calls) expect(headersOf(call)).toEqual({ 'Content-Type': 'application/json' });
  });

  it('reads the attribute at each request: the property sets and clears it, off stops the header', async () => {
    const { el, fetch, rotate } = await loadAndRotate({ 'trace-context': 'false' });
    // Any value of a boolean attribute is on, as with the element's own booleans.
    expect(el.traceContext).toBe(true);
    expect(headersOf(fetch.mock.calls[0]!).traceparent).toMatch(TRACEPARENT);
    el.traceContext = false;
    expect(el.hasAttribute('trace-context')).toBe(false);
    await rotate();
    expect(headersOf(fetch.mock.calls[1]!)).toEqual({ 'Content-Type': 'application/json' });
    el.traceContext = 1 as unknown as boolean;
    expect([el.getAttribute('trace-context'), el.traceContext]).toEqual(['', true]);
  });

  it('makes well-formed, distinct ids every time', () => {
    const values = Array.from({ length: 500 }, traceparent);
    for (const value of values) expect(value).toMatch(TRACEPARENT);
    expect(new Set(values).size).toBe(values.length);
  });
});
