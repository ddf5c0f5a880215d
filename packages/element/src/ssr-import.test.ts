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
