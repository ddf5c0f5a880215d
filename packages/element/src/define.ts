import { EmbeddedDashboard } from './embedded-dashboard.js';
import type { FrameProtocol } from './protocol/frame-protocol.js';
import { FRAME_FEATURES, FRAME_PROTOCOLS, type VariablesSupport } from './protocol/registry.js';

/** The element's tag name. */
export const TAG_NAME = 'embedded-dashboard';

/**
 * Registers `protocols` (by `protocol` attribute value; a name already known keeps its adapter)
 * and defines `<embedded-dashboard>` unless it is defined: what each entry point does on import,
 * its only side effect. A second entry in the page (another vendor's module, or its standalone
 * script, whose element class is another copy) adds its protocols to the element already defined.
 * Guarded so SSR (no `customElements`) and double loads do not throw.
 */
export function defineEmbeddedDashboard(protocols: Readonly<Record<string, FrameProtocol>>, variables?: VariablesSupport): void {
  const ready = typeof customElements !== 'undefined';
  const defined = ready && (customElements.get(TAG_NAME) as Partial<typeof EmbeddedDashboard> | undefined);
  // Another copy's class (an older one) may have no registry: then nothing is added.
  const { protocols: known, features } = defined || { protocols: FRAME_PROTOCOLS, features: FRAME_FEATURES };
  if (known) for (const name in protocols) known[name] ??= protocols[name]!;
  if (features) features.variables ??= variables;
  if (ready && !defined) customElements.define(TAG_NAME, EmbeddedDashboard);
}
