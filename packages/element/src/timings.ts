/**
 * `import '@embedded-dashboard/element/timings'` (or the `standalone/timings` script): gives
 * `<embedded-dashboard>` its `report-timings` attribute and `reportTimings` property. With it set,
 * each load and renewal of the element is measured and beaconed to the BFF's `POST …/timings`
 * beside `token-url` (ARCHITECTURE §5 "Timings"). A module of its own, with or after any vendor's
 * entry: the element's bundles carry none of it (their size budgets, bench rows 1a-1j). Import it
 * with the element's entry (or before its script) so a load is timed from the element's start; an
 * element already loading when it arrives is timed from then.
 */
import { defineOptIn } from './opt-in/opt-in.js';
import { TimingsReporter, type TimingsHost } from './timings/report-timings.js';

export { TimingsReporter } from './timings/report-timings.js';
export type { TimingsHost } from './timings/report-timings.js';

const timed = new WeakSet<Element>();

defineOptIn('reportTimings', 'report-timings', {}, (element) => {
  if (timed.has(element)) return;
  timed.add(element);
  new TimingsReporter(element as unknown as TimingsHost);
});

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
