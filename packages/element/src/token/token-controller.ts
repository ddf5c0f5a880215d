import type { ReactiveController, ReactiveControllerHost } from '@lit/reactive-element';
import { isTokenResponse, renewalDelayMs, TOKEN_REQUEST_TIMEOUT_MS, withTimeout, type TokenResponse } from '@embedded-dashboard/protocol';
import { DashboardState } from '../state.js';
import { retryDelay } from './backoff.js';
import { requestToken, timeoutError, TokenRequestError, type TokenReason } from './request-token.js';

/** An integrator-supplied way to get a token instead of POSTing `token-url`. */
export type FetchToken = (reason: TokenReason, signal: AbortSignal) => Promise<TokenResponse>;

/** What the controller reads from, and reports to, the element that owns it. */
export interface TokenHost extends ReactiveControllerHost {
  readonly tokenUrl: string;
  readonly refreshMargin: number;
  readonly withCredentials: boolean;
  /** The dashboard token requests name, when tokens are per dashboard. */
  readonly tokenScope?: string | undefined;
  /** The chart token requests name (a single-chart token), if any. */
  readonly tokenChart?: string | undefined;
  readonly fetchToken?: FetchToken | undefined;
  /**
   * Extra headers for a `token-url` request, read once per request (a getter may answer each one
   * anew): the seam of opt-in modules (`@embedded-dashboard/element/trace-context` defines it on
   * the element), so the core carries none of them. Named as the fetch option is: the cheapest
   * name in the bundle.
   */
  readonly headers?: Record<string, string> | undefined;
  /** Set while the element's attributes are invalid: no token is fetched for a broken element. */
  readonly problem?: string | undefined;
  readonly isConnected: boolean;
  querySelector(selectors: string): HTMLScriptElement | null;
  tokenChanged(response: TokenResponse, reason: TokenReason): void;
  tokenFailed(error: TokenRequestError): void;
}

/** Every token request gives up after this long (and is retried with backoff): the deadline budget's outermost layer. */
export const TOKEN_TIMEOUT_MS = TOKEN_REQUEST_TIMEOUT_MS;
// setTimeout fires at once for delays past 2^31-1 ms.
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Local epoch ms at which a token received at `receivedAt` is renewed: the protocol's renewal rule
 * (`renewalDelayMs`: the margin at most a third of what is left, so the BFF's spacing of
 * rotations is always over), with what is left measured on the BFF's clock (`serverTime`).
 */
const dueAt = (response: TokenResponse, marginSeconds: number, receivedAt: number): number =>
  receivedAt + renewalDelayMs(response.expiresAt === null ? null : response.expiresAt - response.serverTime, marginSeconds * 1000);

/**
 * The page's running controllers, by the scope their tokens are for (the cross-tab channel's
 * name, and the credentials mode): an element added later (tiles rendered one by one) takes a
 * valid token a connected element of its scope holds instead of asking the BFF. Only connected
 * holders count, so a page that removed its dashboards (a sign-out) hands nothing on.
 */
const holders = new Set<TokenController>();

/** Message posted to the other tabs (and elements) after a rotation. Same origin only. */
interface RotatedMessage {
  type: 'rotated';
  tokenUrl: string;
  response: TokenResponse;
  /** Why the sender renewed: an adopter reports the same (`refresh` on schedule, else `rotate`). */
  reason: TokenReason;
}

/**
 * The token lifecycle of one element, as a reactive controller: fetch, schedule the refresh at
 * `expiresAt - margin` (clock corrected by `serverTime`), retry transient failures with backoff
 * and full jitter, stop on 401/400/403, wake on `online` and `visibilitychange`, share rotations
 * with other tabs. Everything it starts is stopped in `hostDisconnected`.
 */
export class TokenController implements ReactiveController {
  status: DashboardState = DashboardState.loading;
  error?: TokenRequestError | undefined;
  token?: string | undefined;
  #last?: TokenResponse;
  /** Local epoch ms at which a refresh is due. */
  #due = Infinity;
  #receivedAt = 0;
  /** What `holders` and the cross-tab channel match on; set by `#start`. */
  #scope = '';
  #retries = 0;
  #reason: TokenReason = 'initial';
  #timer?: ReturnType<typeof setTimeout> | undefined;
  #run?: AbortController | undefined;
  #channel?: BroadcastChannel | undefined;
  #url = '';
  #on = false;

  readonly #host: TokenHost;

  constructor(host: TokenHost) {
    this.#host = host;
    host.addController(this);
  }

  hostConnected(): void {
    // A first token the server rendered into the page (a JSON script child): read before the
    // first start only (`url` is set by it), on the clock of navigation start (it came with the
    // page), and only while it is not due yet.
    if (!this.#url) {
      try {
        const first: unknown = JSON.parse(this.#host.querySelector('script[type="application/json"]')!.text);
        const at = performance.timeOrigin;
        if (isTokenResponse(first) && dueAt(first, this.#host.refreshMargin, at) > Date.now()) {
          this.#accept(first, 'initial', false, at);
        }
      } catch {
        // None, or not JSON: the first token is fetched as usual.
      }
    }
    // The element's attributes are validated in its first update; start after it.
    this.#host.requestUpdate();
  }

  /**
   * Starts the lifecycle unless it runs, the element is broken or it was removed; stops it when
   * the element is broken (a retry or refresh pending for attributes now invalid is not sent). The
   * element calls this in `willUpdate`, once its attributes are validated and before it reads
   * `status`: the status change of starting lands in that same update instead of scheduling another.
   */
  resume(): void {
    // Lit still runs an update that was pending when the element was removed: do not restart then.
    if (this.#host.problem) this.#stop();
    else if (!this.#on && this.#host.isConnected) this.#start();
  }

  hostDisconnected(): void {
    this.#stop();
  }

  /** Fetches now, forgetting past failures (the retry button). */
  retry(): void {
    this.#retries = 0;
    if (this.#on) void this.#fetch(this.token ? 'refresh' : 'initial');
  }

  /**
   * The dashboard says its token is dead: rotate it, unless a request is already on its way, or
   * the dashboard runs on `dead`, an older token than the one held (a renewal loading in a swap
   * frame): rotating the held one then would present a token nobody refused.
   */
  rotate(dead?: string): void {
    if (this.#on && !this.#run && (dead === undefined || dead === this.token)) void this.#fetch('rotate');
  }

  /** Forgets the token and starts over, e.g. after `token-url` changed. */
  reset(): void {
    this.#stop();
    this.token = this.#last = undefined;
    this.#due = Infinity;
    this.#host.requestUpdate();
  }

  #start(): void {
    this.#on = true;
    this.#url = new URL(this.#host.tokenUrl, document.baseURI).href;
    addEventListener('online', this.#wake);
    document.addEventListener('visibilitychange', this.#wake);
    // Per-dashboard tokens go only to the tabs' elements of that dashboard (and chart): `<url>
    // <dashboard> <chart>`, trimmed. A chart without a dashboard (Metabase's question) is
    // `<url>  <chart>`, never the dashboard of its id.
    const channel = `embedded-dashboard:${[this.#url, this.#host.tokenScope, this.#host.tokenChart].join(' ').trim()}`;
    // An integrator's fetchToken may answer each element differently: its tokens are not handed on in the page.
    this.#scope = this.#host.fetchToken ? '' : `${channel}\n${this.#host.withCredentials}`;
    holders.add(this);
    if (typeof BroadcastChannel === 'function') {
      this.#channel = new BroadcastChannel(channel);
      this.#channel.onmessage = this.#adopt;
    }
    if (!this.token) void this.#fetch('initial');
    else if (this.error) void this.#fetch(this.#reason);
    else this.#schedule(this.#due - Date.now(), 'refresh');
  }

  #stop(): void {
    this.#on = false;
    holders.delete(this);
    clearTimeout(this.#timer);
    this.#run?.abort();
    this.#run = undefined;
    removeEventListener('online', this.#wake);
    document.removeEventListener('visibilitychange', this.#wake);
    this.#channel?.close();
    this.#channel = undefined;
  }

  #schedule(delay: number, reason: TokenReason): void {
    clearTimeout(this.#timer);
    if (delay < Infinity) this.#timer = setTimeout(() => void this.#fetch(reason), Math.min(delay, MAX_TIMER_MS));
  }

  #set(status: DashboardState): void {
    if (status !== this.status) {
      this.status = status;
      this.#host.requestUpdate();
    }
  }

  /** Never rejects: a failure becomes the `error` state (`fail`). */
  async #fetch(reason: TokenReason): Promise<void> {
    clearTimeout(this.#timer);
    this.#run?.abort();
    const run = (this.#run = new AbortController());
    this.#reason = reason;
    this.#set(this.token ? DashboardState.refreshing : DashboardState.loading);
    const { fetchToken, withCredentials, tokenScope, tokenChart, headers } = this.#host;
    // Only rotation-worthy reasons present the held token: `/token` would hand back that same one.
    const held = reason === 'initial' ? undefined : this.token;
    const shared = reason === 'initial' ? this.#shared() : undefined;
    try {
      // A shared token too is taken after an await: the frame is built in the update this one starts.
      const response = shared
        ? // eslint-disable-next-line @typescript-eslint/await-thenable -- a value on purpose: the await defers it past this update
          await shared.response
        : fetchToken
          ? await withTimeout((signal) => fetchToken(reason, signal), TOKEN_TIMEOUT_MS, timeoutError)
          : await requestToken(this.#url, held, {
              credentials: withCredentials ? 'include' : 'same-origin',
              dashboard: tokenScope,
              chart: tokenChart,
              headers,
            });
      if (run.signal.aborted) return;
      this.#run = undefined;
      if (!isTokenResponse(response)) throw new TokenRequestError('invalid_response', 'The token answer was not a token', false);
      this.#accept(response, reason, !shared, shared?.receivedAt);
    } catch (error) {
      if (run.signal.aborted) return;
      this.#run = undefined;
      // A scheduled renewal refused for now (429 "too soon", 503, a timeout) while the token still
      // works is retried quietly: only one the retry comes too late for is reported.
      this.#fail(error instanceof TokenRequestError ? error : new TokenRequestError('network', 'Could not get a dashboard token', true), reason === 'refresh');
    }
  }

  #accept(response: TokenResponse, reason: TokenReason, own: boolean, receivedAt = Date.now()): void {
    const now = Date.now();
    const rotated = this.token !== undefined && this.token !== response.token;
    this.token = response.token;
    this.#last = response;
    this.error = undefined;
    this.#retries = 0;
    this.#receivedAt = receivedAt;
    this.#due = dueAt(response, this.#host.refreshMargin, receivedAt);
    this.#schedule(Math.max(this.#due - now, 0), 'refresh');
    this.#set(DashboardState.ready);
    if (own && rotated && this.#channel) {
      const message: RotatedMessage = { type: 'rotated', tokenUrl: this.#url, response, reason };
      this.#channel.postMessage(message);
    }
    this.#host.tokenChanged(response, reason);
  }

  /** A failure: retried with backoff when retryable (also used by the element for a frame that never loaded). */
  fail(failure: TokenRequestError): void {
    this.#fail(failure, false);
  }

  /** `quiet`: no event for a retryable failure whose retry comes before the held token expires. */
  #fail(failure: TokenRequestError, quiet: boolean): void {
    // A refusal may echo what it was sent (the held token) and be of any size: its text reaches
    // events and the status line only without the token and cut short.
    const clean = (text: string) => (this.token ? text.split(this.token).join('[token]') : text).slice(0, 200);
    const error = (this.error = new TokenRequestError(clean(failure.code), clean(failure.message), failure.retryable, failure.status, failure.retryAfter));
    if (error.retryable) {
      const delay = retryDelay(++this.#retries, error.retryAfter, Math.random);
      this.#schedule(delay, this.#reason);
      this.#set(this.token ? DashboardState.refreshing : DashboardState.error);
      // The dashboard runs on meanwhile; a token it said is dead (`rotate`) is reported at once.
      // (`quiet` is a scheduled renewal's: a token is held. Its expiry on the local clock, as in `dueAt`.)
      if (quiet && Date.now() + delay < this.#receivedAt + (this.#last!.expiresAt ?? Infinity) - this.#last!.serverTime) return;
    } else {
      // Nothing more is scheduled: a refusal of the frame (FrameLink.failed) leaves no renewal running.
      clearTimeout(this.#timer);
      this.#set(error.status === 401 ? DashboardState.unauthenticated : DashboardState.error);
    }
    this.#host.tokenFailed(error);
  }

  /**
   * The token a connected element of the same scope holds, while it is not due: an element added
   * to the page later takes it instead of asking the BFF. Its renewal is due when the holder's
   * is (the two share that request in flight, `requestToken`).
   */
  #shared(): { response: TokenResponse; receivedAt: number } | undefined {
    if (!this.#scope) return undefined;
    for (const holder of holders) {
      const response = holder.#last;
      if (holder !== this && holder.#scope === this.#scope && response && !holder.error && holder.#due > Date.now()) {
        return { response, receivedAt: holder.#receivedAt };
      }
    }
    return undefined;
  }

  /** `online` or the page became visible: catch up on a refresh that is due or that failed. */
  #wake = (): void => {
    if (document.visibilityState === 'hidden' || this.#run) return;
    if (this.error ? this.error.retryable : Date.now() >= this.#due) void this.#fetch(this.error ? this.#reason : 'refresh');
  };

  /**
   * Another tab (or element) rotated the token of this token URL. Adopting its token, instead of
   * fetching `/token`, hands the dashboard a live token at once and costs no request; the BFF would
   * answer with the same token anyway. Older answers (by `serverTime`) are ignored.
   */
  #adopt = ({ data }: MessageEvent<Partial<RotatedMessage> | null>): void => {
    const response = data?.response;
    if (
      data?.type === 'rotated' &&
      data.tokenUrl === this.#url &&
      isTokenResponse(response) &&
      response.token !== this.token &&
      response.serverTime >= (this.#last?.serverTime ?? 0)
    ) {
      // A renewal on schedule stays one for every holder; anything else (older tabs send none) a rotation.
      this.#accept(response, data.reason === 'refresh' ? data.reason : 'rotate', false);
    }
  };
}
