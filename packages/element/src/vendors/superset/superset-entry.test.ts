import { expect, it } from 'vitest';
import { EmbeddedDashboard, FRAME_PROTOCOLS, supersetProtocol, TAG_NAME } from '../../superset.js';

it('the Superset entry alone defines the element with the Superset protocol only, and its methods', async () => {
  expect(Object.keys(FRAME_PROTOCOLS)).toEqual(['superset']);
  expect(FRAME_PROTOCOLS.superset).toBe(supersetProtocol);
  expect(customElements.get(TAG_NAME)).toBe(EmbeddedDashboard);
  for (const name of ['getDataMask', 'getActiveTabs', 'getDashboardPermalink'])
    expect(typeof (EmbeddedDashboard.prototype as unknown as Record<string, unknown>)[name]).toBe('function');
  // The main entry in the same page adds its protocols to the element already defined.
  await import('../../index.js');
  expect(Object.keys(FRAME_PROTOCOLS)).toEqual(['superset', 'message', 'explo', 'explo-jwt']);
  expect(customElements.get(TAG_NAME)).toBe(EmbeddedDashboard);
});
