/**
 * `import '@embedded-dashboard/element/trace-context'` (or the `standalone/trace-context` script):
 * gives `<embedded-dashboard>` its `trace-context` attribute and `traceContext` property. With it
 * set, each request to `token-url` (the first token and every `…/rotate`) carries a fresh W3C
 * `traceparent`, for a BFF that traces with OpenTelemetry to continue (ARCHITECTURE §4.5). A
 * module of its own, with or after any vendor's entry: the element's bundles carry only the
 * `headers` seam it fills (their size budgets, bench rows 1a-1j). A `fetchToken` replaces
 * the request, and with it the header.
 */

const TAG = 'embedded-dashboard';
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

type ElementClass = CustomElementConstructor & { readonly prototype: HTMLElement; addInitializer?(initializer: (element: HTMLElement) => void): void };

/** A value set on an element before this module defined the property moves to the attribute. */
const adopt = (element: HTMLElement): void => {
  if (!Object.hasOwn(element, 'traceContext')) return;
  const value = (element as { traceContext?: unknown }).traceContext;
  delete (element as { traceContext?: unknown }).traceContext;
  element.toggleAttribute(ATTRIBUTE, !!value);
};

const enable = (element: ElementClass): void => {
  if (Object.hasOwn(element.prototype, 'traceContext')) return;
  // The attribute is the state (read at each request), so React, SSR and markup set it alike.
  Object.defineProperties(element.prototype, {
    traceContext: {
      configurable: true,
      get(this: HTMLElement) {
        return this.hasAttribute(ATTRIBUTE);
      },
      set(this: HTMLElement, value: unknown) {
        this.toggleAttribute(ATTRIBUTE, !!value);
      },
    },
    // The token controller's seam, read once per token request: a new traceparent each time.
    headers: {
      configurable: true,
      get(this: HTMLElement) {
        return this.hasAttribute(ATTRIBUTE) ? { traceparent: traceparent() } : undefined;
      },
    },
  });
  element.addInitializer?.(adopt);
  for (const existing of document.querySelectorAll<HTMLElement>(TAG)) adopt(existing);
};

if (typeof customElements !== 'undefined') {
  const defined: ElementClass | undefined = customElements.get(TAG);
  if (defined) enable(defined);
  else void customElements.whenDefined(TAG).then((element) => enable(element as ElementClass));
}

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
