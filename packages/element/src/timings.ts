/**
 * `import '@embedded-dashboard/element/timings'` (or the `standalone/timings` script): gives
 * `<embedded-dashboard>` its `report-timings` attribute and `reportTimings` property. With it set,
 * each load and renewal of the element is measured and beaconed to the BFF's `POST …/timings`
 * beside `token-url` (ARCHITECTURE §5 "Timings"). A module of its own, with or after any vendor's
 * entry: the element's bundles carry none of it (their size budgets, bench rows 1a-1j). Import it
 * with the element's entry (or before its script) so a load is timed from the element's start; an
 * element already loading when it arrives is timed from then.
 */
import { TimingsReporter, type TimingsHost } from './timings/report-timings.js';

export { TimingsReporter } from './timings/report-timings.js';
export type { TimingsHost } from './timings/report-timings.js';

const TAG = 'embedded-dashboard';
const ATTRIBUTE = 'report-timings';
const timed = new WeakSet<Element>();

type ElementClass = CustomElementConstructor & { readonly prototype: HTMLElement; addInitializer?(initializer: (element: HTMLElement) => void): void };

const attach = (element: HTMLElement): void => {
  if (timed.has(element)) return;
  timed.add(element);
  // A value set on the element before this module defined the property moves to the attribute.
  if (Object.hasOwn(element, 'reportTimings')) {
    const value = (element as { reportTimings?: unknown }).reportTimings;
    delete (element as { reportTimings?: unknown }).reportTimings;
    element.toggleAttribute(ATTRIBUTE, !!value);
  }
  new TimingsReporter(element as unknown as TimingsHost);
};

const enable = (element: ElementClass): void => {
  if (Object.hasOwn(element.prototype, 'reportTimings')) return;
  // The attribute is the state (read when a report is due), so React, SSR and markup set it alike.
  Object.defineProperty(element.prototype, 'reportTimings', {
    configurable: true,
    get(this: HTMLElement) {
      return this.hasAttribute(ATTRIBUTE);
    },
    set(this: HTMLElement, value: unknown) {
      this.toggleAttribute(ATTRIBUTE, !!value);
    },
  });
  element.addInitializer?.(attach);
  for (const existing of document.querySelectorAll<HTMLElement>(TAG)) attach(existing);
};

if (typeof customElements !== 'undefined') {
  const defined: ElementClass | undefined = customElements.get(TAG);
  if (defined) enable(defined);
  else void customElements.whenDefined(TAG).then((element) => enable(element as ElementClass));
}

declare module './embedded-dashboard.js' {
  interface EmbeddedDashboard {
    /**
     * After each load and renewal, beacon its timings to the BFF's `POST …/timings` beside
     * `token-url` (`/embed/token` -> `/embed/timings`), with the page's cookies. Off by default;
     * defined by `@embedded-dashboard/element/timings`. Attribute `report-timings`.
     */
    reportTimings: boolean;
  }
}
