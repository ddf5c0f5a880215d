/**
 * `import '@embedded-dashboard/element/trace-context'` (or the `standalone/trace-context` script):
 * gives `<embedded-dashboard>` its `trace-context` attribute and `traceContext` property. With it
 * set, each request to `token-url` (the first token and every `…/rotate`) carries a fresh W3C
 * `traceparent`, for a BFF that traces with OpenTelemetry to continue (ARCHITECTURE §4.5). A
 * module of its own, with or after any vendor's entry: the element's bundles carry only the
 * `headers` seam it fills (their size budgets, bench rows 1a-1j). A `fetchToken` replaces
 * the request, and with it the header.
 */

import { defineOptIn } from './opt-in/opt-in.js';

const ATTRIBUTE = 'trace-context';

/** `bytes` random bytes as lowercase hex, never all zeros (W3C: an all-zero id is invalid). */
const randomId = (bytes: number): string => {
  let id: string;
  do id = Array.from(crypto.getRandomValues(new Uint8Array(bytes)), (b) => (b | 256).toString(16).slice(1)).join('');
  while (/^0+$/.test(id));
  return id;
};

/**
 * A W3C `traceparent`: version `00`, a random trace id and parent id, sampled (`01`). The element
 * records no span: the parent id only names "the browser's request", and an operator who turned
 * `trace-context` on wants it traced.
 */
export const traceparent = (): string => `00-${randomId(16)}-${randomId(8)}-01`;

defineOptIn('traceContext', ATTRIBUTE, {
  // The token controller's seam, read once per token request: a new traceparent each time.
  headers: {
    configurable: true,
    get(this: HTMLElement) {
      return this.hasAttribute(ATTRIBUTE) ? { traceparent: traceparent() } : undefined;
    },
  },
});

declare module './embedded-dashboard.js' {
  interface EmbeddedDashboard {
    /**
     * Send a fresh W3C `traceparent` (random ids, sampled) with each token and rotate request,
     * for a BFF that traces to continue. Off by default; defined by
     * `@embedded-dashboard/element/trace-context`. Attribute `trace-context`.
     */
    traceContext: boolean;
  }
}
