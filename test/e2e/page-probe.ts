/**
 * What the scenarios record inside the demo's pages, from before the page's own scripts, in
 * every engine: the element's events, the page's `/embed/token*`, `/embed-jwt/token*` and
 * `/embed-chart/token*` requests (the demo's three BFFs; by wrapping `fetch`,
 * which the element calls at request time) with their status and token, and the page's console
 * errors. WebKit's classic WebDriver cannot inject a script before the page's own, so the probe
 * is part of the page: the demo the harness starts serves a copy of the built pages with it first
 * in `<head>` (see `probedPublicDir` in ./harness.ts). A test page of a test's own server puts
 * `PAGE_PROBE_TAG` in its `<head>`.
 */

/** One element event as the probe recorded it. */
export interface RecordedEvent {
  type: string;
  detail: Record<string, unknown>;
  /** `Date.now()` in the page when it fired. */
  at: number;
  /** The rendered height of the element's visible frame as it fired (CSS px). */
  frameHeight: number;
}

/** One `/embed/token*`, `/embed-jwt/token*` or `/embed-chart/token*` request of the page. */
export interface TokenRequest {
  path: string;
  /** The request body's `dashboard`, when it named one (`explo-jwt`). */
  dashboard?: string;
  /** The request body's `chart`, when it named one (a single-chart token). */
  chart?: string;
  /** `Date.now()` in the page when it was sent. */
  at: number;
  /** The response's status once answered; `0` for no answer (refused, aborted). */
  status?: number;
  /** The token of a 200 answer. */
  token?: string;
}

/** A message a frame posted to the page (`{ event, detail }`), as the page received it. */
export interface FrameMessage {
  event: string;
  detail: unknown;
}

export interface PageProbe {
  events: RecordedEvent[];
  /** The first 200 `{ event, detail }` messages posted to the page (the dashboard frames'), before the element saw them. */
  messages: FrameMessage[];
  tokenRequests: TokenRequest[];
  console: string[];
}

declare global {
  interface Window {
    __probe?: PageProbe;
  }
}

export const ELEMENT_EVENTS = [
  'dashboard-load',
  'dashboard-token',
  'dashboard-error',
  'dashboard-resize',
  'dashboard-variable-change',
  'dashboard-custom-event',
];

/** The cookie that pins the element's jitter at one half in the probed pages (each retry waits half its ceiling). */
export const PIN_JITTER_COOKIE = 'e2e-jitter';

/** Runs first in the page (top documents only). */
function installProbe(names: string[], pinCookie: string): void {
  if (window !== window.top || window.__probe) return;
  const probe: PageProbe = { events: [], messages: [], tokenRequests: [], console: [] };
  window.__probe = probe;
  addEventListener('message', (event: MessageEvent) => {
    const data = event.data as { event?: unknown; detail?: unknown } | null;
    if (typeof data?.event === 'string' && probe.messages.length < 200) probe.messages.push({ event: data.event, detail: data.detail });
  });
  for (const type of names) {
    document.addEventListener(type, (event) => {
      const element = event.target as Element;
      const frame = element.shadowRoot?.querySelector('iframe:not(.next)') ?? element.querySelector('iframe');
      const frameHeight = Math.round(frame?.getBoundingClientRect().height ?? 0);
      probe.events.push({ type, detail: { ...(event as CustomEvent).detail }, at: Date.now(), frameHeight });
    });
  }
  const send = window.fetch;
  window.fetch = function (this: unknown, input: RequestInfo | URL, init?: RequestInit) {
    const answer = send.call(this, input, init);
    const url = new URL(input instanceof Request ? input.url : String(input), location.href);
    if (/^\/embed(?:-jwt|-chart)?\/token/.test(url.pathname)) {
      const entry: TokenRequest = { path: url.pathname, at: Date.now() };
      try {
        const { dashboard, chart } = JSON.parse(String(init?.body)) as { dashboard?: unknown; chart?: unknown };
        if (typeof dashboard === 'string') entry.dashboard = dashboard;
        if (typeof chart === 'string') entry.chart = chart;
      } catch {
        // No JSON body: nothing to note.
      }
      probe.tokenRequests.push(entry);
      answer.then(
        (response) => {
          entry.status = response.status;
          if (response.status === 200)
            response
              .clone()
              .json()
              .then((body: { token?: string }) => (entry.token = body.token))
              .catch(() => undefined);
        },
        () => (entry.status = 0),
      );
    }
    return answer;
  };
  for (const level of ['error', 'warn'] as const) {
    const write = console[level];
    console[level] = (...args: unknown[]) => {
      probe.console.push(`${level}: ${args.map(String).join(' ')}`);
      write.apply(console, args);
    };
  }
  addEventListener('error', (event) => probe.console.push(`pageerror: ${event.message}`));
  addEventListener('unhandledrejection', (event) => probe.console.push(`unhandledrejection: ${String(event.reason)}`));
  if (new RegExp(`(?:^|;\\s*)${pinCookie}=half(?:;|$)`).test(document.cookie)) Math.random = () => 0.5;
}

/** The probe as script source: a file of a test page's own server under a CSP that allows no inline script. */
export const PAGE_PROBE_SOURCE = `(${installProbe.toString()})(${JSON.stringify(ELEMENT_EVENTS)}, ${JSON.stringify(PIN_JITTER_COOKIE)})`;

/** The probe as an inline classic script (runs before the page's module scripts). */
export const PAGE_PROBE_TAG = `<script>${PAGE_PROBE_SOURCE}</script>`;
