// @vitest-environment node
import { afterAll, expect, it, vi } from 'vitest';

afterAll(() => vi.resetModules());

it('imports where window does not exist (SSR) without throwing or creating a DOM', async () => {
  expect(typeof window).toBe('undefined');
  expect(typeof document).toBe('undefined');
  const element = await import('./index.js');
  expect(element.TAG_NAME).toBe('embedded-dashboard');
  expect(typeof window).toBe('undefined');
  expect(typeof document).toBe('undefined');
  expect(typeof addEventListener).toBe('undefined');
  // Lit's server build brings a shim registry; the element lands there, where Lit SSR looks for it.
  expect(customElements.get('embedded-dashboard')).toBe(element.EmbeddedDashboard);
  vi.resetModules();
  await expect(import('./index.js')).resolves.toMatchObject({ TAG_NAME: 'embedded-dashboard' });
});

it('the opt-in modules import after the element on the server too (as the React wrapper does), and add their properties there', async () => {
  await import('./index.js');
  await import('./timings.js');
  await import('./trace-context.js');
  expect(typeof document).toBe('undefined');
  // The registry's class (the first test's, as modules were reset since) is the one SSR renders.
  const defined = customElements.get('embedded-dashboard')!;
  expect(Object.hasOwn(defined.prototype, 'reportTimings')).toBe(true);
  expect(Object.hasOwn(defined.prototype, 'traceContext')).toBe(true);
});

it('can be constructed on the server: no timer, fetch or listener is started before it connects', async () => {
  const fetch = vi.fn();
  vi.stubGlobal('fetch', fetch);
  vi.useFakeTimers();
  try {
    const { EmbeddedDashboard } = await import('./index.js');
    const el = new EmbeddedDashboard();
    el.dashboard = 'sales';
    expect(el.state).toBe('loading');
    await vi.advanceTimersByTimeAsync(60_000);
    expect(vi.getTimerCount()).toBe(0);
    expect(fetch).not.toHaveBeenCalled();
  } finally {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  }
});
