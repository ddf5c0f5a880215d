import { EmbeddedDashboard } from './embedded-dashboard.js';
import type { FrameProtocol } from './protocol/frame-protocol.js';
import type { FramesClass } from './frame/frame-host.js';
import type { VariablesSupport } from './frame/registry.js';

/** The element's tag name. */
export const TAG_NAME = 'embedded-dashboard';

/**
 * Registers `protocols` (by `protocol` attribute value; a name already known keeps its adapter)
 * and defines `<embedded-dashboard>` unless it is defined: what each entry point does on import,
 * its only side effect. A second entry in the page (another vendor's module, or its standalone
 * script, whose element class is another copy) adds its protocols to the element already defined.
 * Guarded so SSR (no `customElements`) and double loads do not throw.
 */
export function defineEmbeddedDashboard(protocols: Readonly<Record<string, FrameProtocol>>, frames: FramesClass, variables?: VariablesSupport): void {
  const ready = typeof customElements !== 'undefined';
  const defined = ready && (customElements.get(TAG_NAME) as Partial<typeof EmbeddedDashboard> | undefined);
  // This copy's registries, and the defined element's when it is another copy (an older one may have none).
  for (const { protocols: known, features } of new Set([EmbeddedDashboard, defined || EmbeddedDashboard])) {
    if (known) for (const name in protocols) known[name] ??= protocols[name]!;
    if (features) {
      features.variables ??= variables;
      // A full frames controller replaces a lean one: the protocols registered now may need it.
      if (!features.frames || (features.frames.lean && !frames.lean)) features.frames = frames;
    }
  }
  if (ready && !defined) customElements.define(TAG_NAME, EmbeddedDashboard);
}
