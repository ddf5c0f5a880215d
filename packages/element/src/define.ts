import { EmbeddedDashboard } from './embedded-dashboard.js';
import type { FrameProtocol } from './protocol/frame-protocol.js';
import type { FramesClass } from './frame/frame-host.js';
import { FRAME_FEATURES, type VariablesSupport } from './frame/registry.js';

/** The element's tag name. */
export const TAG_NAME = 'embedded-dashboard';

/**
 * Registers `protocols` (by `protocol` attribute value; a name already known keeps its adapter)
 * in the page's registry and defines `<embedded-dashboard>` unless it is defined: what each entry
 * point does on import, its only side effect. A second entry in the page (another vendor's module,
 * or its standalone script, whose element class is another copy) adds its protocols to the same
 * registry, which the element already defined reads. Guarded so SSR (no `customElements`) and
 * double loads do not throw.
 */
export function defineEmbeddedDashboard(protocols: Readonly<Record<string, FrameProtocol>>, frames: FramesClass, variables?: VariablesSupport): void {
  const features = FRAME_FEATURES;
  for (const name in protocols) features.protocols[name] ??= protocols[name]!;
  features.variables ??= variables;
  // A full frames controller replaces a lean one: the protocols registered now may need it.
  if (!features.frames || (features.frames.lean && !frames.lean)) features.frames = frames;
  if (typeof customElements !== 'undefined' && !customElements.get(TAG_NAME)) customElements.define(TAG_NAME, EmbeddedDashboard);
}
