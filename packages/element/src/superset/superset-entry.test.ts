import { expect, it, vi } from 'vitest';
import { EmbeddedDashboard, FRAME_PROTOCOLS, supersetProtocol, TAG_NAME } from '../superset.js';

it('the Superset entry alone defines the element with the Superset protocol only, and its methods', async () => {
  expect(Object.keys(FRAME_PROTOCOLS)).toEqual(['superset']);
  expect(FRAME_PROTOCOLS.superset).toBe(supersetProtocol);
  expect(customElements.get(TAG_NAME)).toBe(EmbeddedDashboard);
  for (const name of ['getDataMask', 'getActiveTabs', 'getDashboardPermalink'])
    expect(typeof (EmbeddedDashboard.prototype as unknown as Record<string, unknown>)[name]).toBe('function');
  // The main entry in the same page, as another copy of the element (a second bundle, or its
  // standalone script), adds its protocols and its full frames controller to the page's registry,
  // which the element already defined reads.
  vi.resetModules();
  const main = await import('../index.js');
  expect(main.EmbeddedDashboard).not.toBe(EmbeddedDashboard);
  expect(main.FRAME_PROTOCOLS).toBe(FRAME_PROTOCOLS);
  expect(Object.keys(FRAME_PROTOCOLS)).toEqual(['superset', 'message', 'explo', 'explo-jwt']);
  expect(customElements.get(TAG_NAME)).toBe(EmbeddedDashboard);
  const { FRAME_FEATURES } = await import('../frame/registry.js');
  expect(FRAME_FEATURES.frames?.lean).toBeUndefined();
  expect(FRAME_FEATURES.variables).toBeDefined();
});
