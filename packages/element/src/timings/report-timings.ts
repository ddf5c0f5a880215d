import type { ReactiveController, ReactiveControllerHost } from '@lit/reactive-element';
import { FRAME_PROTOCOLS } from '../frame/registry.js';
import { DashboardState } from '../state.js';

/** What the reporter reads from the element that owns it. */
export interface TimingsHost extends ReactiveControllerHost, EventTarget {
  /** Opt-in: `report-timings`. Read when a report is due, so it may be set at any time. */
  readonly reportTimings: boolean;
  readonly state: DashboardState;
  readonly tokenUrl: string;
  readonly dashboard?: string | undefined;
  readonly protocol: string;
  readonly withCredentials: boolean;
  readonly renderRoot: EventTarget;
}

/** The report of one load or renewal being measured: ms since it started, each once. */
interface Cycle {
  kind: 'load' | 'renewal';
  token?: number;
  frame?: number;
  loaded?: number;
}

/**
 * The element's timings (`report-timings`), as a reactive controller over the element's own
 * `state` and events only, so it is the same for every protocol: each load and each renewal,
 * measured in ms (`performance.now()`) from its start, then beaconed to the BFF's `POST …/timings`
 * beside `token-url` (ARCHITECTURE §5 "Timings"):
 *
 * - a load starts when `state` enters `loading` (the first token request starts in that update;
 *   a load still open, retrying after a failed request, goes on); a renewal when `state` goes from
 *   `ready` to `refreshing` (a scheduled refresh, or a rotation the dashboard asked for);
 *   `unauthenticated` ends either unsent;
 * - `token`: the next `dashboard-token` (retries included; none when no request was made: a
 *   token the server rendered into the page);
 * - `frame`: the last `load` of a frame with a `src` in the element before the dashboard said it
 *   loaded (the page that shows it, with its subresources, not yet its data; after a page the
 *   vendor refused and the element loaded again, the one that worked); none for a server-rendered
 *   frame adopted after its load;
 * - `loaded`: `dashboard-load`, which ends a load, and a renewal that loads a new frame (`explo`);
 *   any other renewal ends at its token.
 */
export class TimingsReporter implements ReactiveController {
  readonly #host: TimingsHost;
  #cycle?: Cycle | undefined;
  #start = 0;
  #state?: DashboardState | undefined;

  constructor(host: TimingsHost) {
    this.#host = host;
    host.addController(this);
  }

  hostConnected(): void {
    this.#listen('addEventListener');
    // Attached to an element already under way (the module came after it): from its state now.
    this.hostUpdate();
  }

  hostDisconnected(): void {
    this.#listen('removeEventListener');
    this.#cycle = this.#state = undefined;
  }

  #listen(how: 'addEventListener' | 'removeEventListener'): void {
    const host = this.#host;
    host[how]('dashboard-token', this);
    host[how]('dashboard-load', this);
    // `load` does not bubble: caught on its way down, to an adopted frame and to the shadow root's.
    host[how]('load', this, true);
    host.renderRoot[how]('load', this, true);
  }

  hostUpdate(): void {
    const { state } = this.#host;
    const was = this.#state;
    this.#state = state;
    if (state === was) return;
    if (state === DashboardState.loading ? this.#cycle?.kind !== 'load' : state === DashboardState.refreshing && was === DashboardState.ready) {
      this.#cycle = { kind: state === DashboardState.loading ? 'load' : 'renewal' };
      this.#start = performance.now();
    } else if (state === DashboardState.unauthenticated) this.#cycle = undefined;
  }

  handleEvent({ type, target }: Event): void {
    const cycle = this.#cycle;
    if (!cycle) return;
    const ms = Math.round(performance.now() - this.#start);
    if (type === 'load') {
      if ((target as Element).localName === 'iframe' && (target as Element).getAttribute('src')) cycle.frame = ms;
    } else if (type === 'dashboard-token') {
      cycle.token ??= ms;
      if (cycle.kind === 'renewal' && !FRAME_PROTOCOLS[this.#host.protocol]?.swap) this.#send(cycle);
    } else {
      cycle.loaded = ms;
      this.#send(cycle);
    }
  }

  #send(cycle: Cycle): void {
    const host = this.#host;
    this.#cycle = undefined;
    // The BFF allows and labels reports by dashboard: an item without one (a Metabase question
    // alone, `chart` only) would only be refused (400), so it sends none.
    if (!host.reportTimings || !host.dashboard) return;
    const url = new URL('timings', new URL(host.tokenUrl, document.baseURI)).href;
    // A string goes as text/plain, a CORS-safelisted type: a cross-origin BFF needs no preflight.
    const body = JSON.stringify({ dashboard: host.dashboard, ...cycle });
    if (!navigator.sendBeacon?.(url, body))
      fetch(url, { method: 'POST', body, keepalive: true, credentials: host.withCredentials ? 'include' : 'same-origin' }).catch(() => {});
  }
}
