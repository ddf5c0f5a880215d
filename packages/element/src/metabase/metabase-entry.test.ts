import { expect, it, vi } from 'vitest';
import { EmbeddedDashboard, FRAME_PROTOCOLS, metabaseProtocol, TAG_NAME } from '../metabase.js';

it('the Metabase entry alone defines the element with the Metabase protocol only, the full frames controller and the variables', async () => {
  expect(Object.keys(FRAME_PROTOCOLS)).toEqual(['metabase']);
  expect(FRAME_PROTOCOLS.metabase).toBe(metabaseProtocol);
  expect(customElements.get(TAG_NAME)).toBe(EmbeddedDashboard);
  const { FRAME_FEATURES } = await import('../frame/registry.js');
  const { FrameController } = await import('../frame/frame-controller.js');
  expect(FRAME_FEATURES.frames).toBe(FrameController);
  expect(FRAME_FEATURES.variables).toBeDefined();
  // Another vendor's entry in the same page (a second copy of the element) adds its protocols to the page's registry.
  vi.resetModules();
  const superset = await import('../superset.js');
  expect(superset.FRAME_PROTOCOLS).toBe(FRAME_PROTOCOLS);
  expect(Object.keys(FRAME_PROTOCOLS)).toEqual(['metabase', 'superset']);
  expect(customElements.get(TAG_NAME)).toBe(EmbeddedDashboard);
  // The lean controller Superset's entry brings does not replace the full one Metabase needs.
  expect(FRAME_FEATURES.frames?.lean).toBeUndefined();
});
