import { ReactiveElement, type PropertyValues } from '@lit/reactive-element';
import {
  DashboardEvent,
  MAX_DASHBOARD_HEIGHT,
  MIN_DASHBOARD_HEIGHT,
  type DashboardVariables,
  type TokenResponse,
} from '@embedded-dashboard/protocol';
import { styles } from './embedded-dashboard.styles.js';
import type { EmbeddedDashboardEventMap } from './events.js';
import { parseVariables } from './frame/parse-variables.js';
import { exploJwtProtocol } from './protocol/explo-jwt-protocol.js';
import { exploProtocol } from './protocol/explo-protocol.js';
import type { FrameProtocol } from './protocol/frame-protocol.js';
import { messageProtocol } from './protocol/message-protocol.js';
import { DashboardState } from './state.js';
import { en, type DashboardStrings } from './strings/strings.js';
import { TokenRequestError, type TokenReason } from './token/request-token.js';
import { TokenController, type FetchToken, type TokenHost } from './token/token-controller.js';
import { ShadowView } from './view/shadow-view.js';

/**
 * The frame protocols the element knows, by `protocol` attribute value: `message`, `explo` and
 * `explo-jwt`, in every entry point (the module and the standalone script). A third vendor is
 * one more entry.
 */
export const FRAME_PROTOCOLS: Record<string, FrameProtocol> = { message: messageProtocol, explo: exploProtocol, 'explo-jwt': exploJwtProtocol };

/** A new frame (token in the URL) that has not reported loaded by then is dropped; the old one stays. */
export const FRAME_SWAP_TIMEOUT_MS = 15_000;

const emit = <K extends keyof EmbeddedDashboardEventMap>(
  target: EventTarget,
  type: K,
  detail: EmbeddedDashboardEventMap[K]['detail'],
): boolean => target.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, composed: true }));

/**
 * Shows a vendor dashboard in an iframe and keeps its user group token fresh through the BFF.
 *
 * @tagname embedded-dashboard
 * @summary A vendor dashboard, embedded safely, with its token kept fresh.
 *
 * @slot loading - Replaces the default loading skeleton.
 * @slot error - Replaces the default error message and retry button (shown in `error` and `unauthenticated`).
 * @slot frame - A dashboard `<iframe>` the server rendered (`renderDashboardFrame`), adopted when its `src` is exactly the element's URL; any other is removed.
 *
 * @event {DashboardLoadEvent} dashboard-load - The dashboard loaded: `{ dashboardId, height, loadTime }`.
 * @event {DashboardTokenEvent} dashboard-token - A token was obtained: `{ reason: 'initial' | 'refresh' | 'rotate', expiresAt }`. Never the token.
 * @event {DashboardErrorEvent} dashboard-error - Invalid attributes or a failed token request: `{ code, message, retryable }`.
 * @event {DashboardResizeEvent} dashboard-resize - The dashboard reported a new height: `{ height }`.
 * @event {DashboardVariableChangeEvent} dashboard-variable-change - The viewer changed a variable: `{ name, value }`.
 *
 * @attr sandbox - The iframe's `sandbox` tokens; unset = no sandbox. The dashboard needs at least `allow-scripts allow-same-origin` (without the latter its messages come from origin `null` and are ignored). Read when a frame is rendered: set it in the markup.
 * @attr loading - The iframe's `loading`: `lazy` defers the dashboard until it nears the viewport; unset = the browser's default (`eager`).
 *
 * @csspart base - The wrapper around the frame and the overlays; focusable by script (`tabindex="-1"`): focus lands here when the retry button it was on goes away.
 * @csspart frame - The dashboard `<iframe>`.
 * @csspart status - The live region announcing the state (visually hidden).
 *
 * @cssproperty [--embedded-dashboard-min-height=400px] - Height reserved while loading or failed, so the layout does not shift.
 * @cssproperty [--embedded-dashboard-height=var(--embedded-dashboard-min-height)] - Frame height when it is not auto-resized.
 * @cssproperty [--embedded-dashboard-border=none] - Border of the element.
 * @cssproperty [--embedded-dashboard-radius=0] - Corner radius of the element.
 * @cssproperty [--embedded-dashboard-background=transparent] - Background of the element.
 * @cssproperty [--embedded-dashboard-color=inherit] - Text color of the loading and error UI.
 * @cssproperty [--embedded-dashboard-font=inherit] - Font of the loading and error UI.
 * @cssproperty [--embedded-dashboard-skeleton-color=#e8e8ec] - Color of the loading skeleton.
 * @cssproperty [--embedded-dashboard-accent=#2563eb] - Background of the retry button.
 * @cssproperty [--embedded-dashboard-button-color=#fff] - Text color of the retry button.
 *
 * @example
 * <embedded-dashboard dashboard="sales-overview"
 *   src-template="https://dashboards.example.com/iframe/{dashboard}"></embedded-dashboard>
 */
export class EmbeddedDashboard extends ReactiveElement implements TokenHost {
  static override properties = {
    dashboard: {},
    srcTemplate: { attribute: 'src-template' },
    protocol: {},
    tokenUrl: { attribute: 'token-url' },
    environment: {},
    variables: {},
    refreshMargin: { attribute: 'refresh-margin', type: Number },
    label: {},
    noAutoResize: { attribute: 'no-auto-resize', type: Boolean },
    withCredentials: { attribute: 'with-credentials', type: Boolean },
    state: {},
    fetchToken: { attribute: false },
    strings: { attribute: false },
  };
  static override styles = styles;

  /** Id of the dashboard to show (required). Attribute `dashboard`. */
  declare dashboard?: string;
  /** Iframe URL with `{dashboard}`, `{environment}` and optionally `{token}`. Attribute `src-template`. */
  declare srcTemplate?: string;
  /** The BFF's token route; rotation goes to `${tokenUrl}/rotate`. Attribute `token-url`. */
  declare tokenUrl: string;
  /**
   * How the element talks to the frame: `message` (default; our own protocol, token by message),
   * `explo` (the vendor's documented embed: token in the URL, rotated by swapping in a new frame)
   * or `explo-jwt` (the vendor's embed tokens: the first in the URL, later ones posted to the
   * running frame; token requests name the dashboard).
   */
  declare protocol: string;
  /** Substituted for `{environment}`. */
  declare environment?: string;
  /** Dashboard variables: a JSON object (attribute) or an object (property). */
  declare variables?: string | DashboardVariables;
  /** Seconds before `expiresAt` at which the token is refreshed. Attribute `refresh-margin`. */
  declare refreshMargin: number;
  /** Accessible name of the iframe; defaults to the dashboard id. */
  declare label?: string;
  /** Keep the frame's CSS height instead of following the dashboard's height. Attribute `no-auto-resize`. */
  declare noAutoResize: boolean;
  /** Send cookies to a cross-origin `token-url` (`credentials: 'include'`). Attribute `with-credentials`. */
  declare withCredentials: boolean;
  /**
   * The current state, reflected as the `state` attribute once it first leaves the initial
   * `loading` (so `:not([state])` is loading too). Read it; setting it has no effect.
   */
  declare state: DashboardState;
  /** Gets tokens another way than POSTing `token-url`. Must resolve to a `TokenResponse`. */
  declare fetchToken?: FetchToken;
  /** Texts shown and announced, replacing the English ones given (e.g. `de` from `@embedded-dashboard/element/strings`). */
  declare strings?: DashboardStrings;

  /** @internal Why the attributes are unusable, when they are. */
  problem?: string;
  /** @internal The dashboard token requests name (`explo-jwt`), else `undefined`. */
  tokenScope?: string | undefined;
  readonly #tokens = new TokenController(this);
  /** The two frame slots: the visible one (`cur`) and, during a swap, the one loading hidden. */
  #srcs: (string | undefined)[] = [];
  #cur = 0;
  /** The token in the visible frame's URL, and in the last frame loaded to replace it. */
  #srcToken?: string | undefined;
  #nextToken?: string | undefined;
  #swapTimer?: ReturnType<typeof setTimeout>;
  #adapter: FrameProtocol = messageProtocol;
  #origin = '';
  #srcKey?: string;
  #vars: DashboardVariables = {};
  /**
   * The frame the server rendered into the page (`<iframe slot="frame">` child), taken over
   * instead of loading a second one: it is the visible frame (slot 0) until its src changes or a
   * swap replaces it, then it is removed.
   */
  #own?: HTMLIFrameElement | null | void;
  #frameReady = false;
  #loaded = false;
  #height?: number;
  /**
   * What had focus in the element as the coming render began (set earlier when the adopted frame
   * that had it was removed before the render); `null` when focus was elsewhere.
   */
  #focus?: Element | null;
  #view?: ShadowView;

  constructor() {
    super();
    this.tokenUrl = '/embed/token';
    this.protocol = 'message';
    this.refreshMargin = 60;
    this.noAutoResize = this.withCredentials = false;
    this.state = DashboardState.loading;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    addEventListener('message', this.#onMessage);
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    removeEventListener('message', this.#onMessage);
    this.#dropSwap();
  }

  #win(slot: number): Window | null | undefined {
    return ((!slot && this.#own) || this.renderRoot.querySelector<HTMLIFrameElement>('#f' + slot))?.contentWindow;
  }

  /** The adopted frame when it has focus (a slotted child: outside the shadow root's activeElement). */
  #ownFocus(): Element | null {
    return this.#own?.matches(':focus') ? this.#own : null;
  }

  #dropSwap(): void {
    clearTimeout(this.#swapTimer);
    this.#srcs[this.#cur ^ 1] = undefined;
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('tokenUrl') && changed.get('tokenUrl') !== undefined) this.#tokens.reset();
    let problem: string | undefined;
    const own = this.querySelector<HTMLIFrameElement>('iframe[slot=frame]');
    try {
      this.#vars = parseVariables(this.variables);
      if (!this.dashboard) throw new Error('dashboard is required');
      // NaN would arm no refresh timer at all; a negative margin would refresh after expiry.
      if (!(this.refreshMargin >= 0 && this.refreshMargin < Infinity)) throw new Error('refresh-margin must be 0 or more seconds');
      if (!Object.hasOwn(FRAME_PROTOCOLS, this.protocol)) throw new Error(`unknown protocol ${this.protocol}`);
      const adapter = (this.#adapter = FRAME_PROTOCOLS[this.protocol]!);
      // A token for one dashboard is no token for another: a new scope starts the tokens over.
      const scope = adapter.perDashboard ? this.dashboard : undefined;
      if (scope !== this.tokenScope && this.hasUpdated) this.#tokens.reset();
      this.tokenScope = scope;
      const cur = this.#cur;
      const token = this.#tokens.token;
      const key = `${this.srcTemplate}\n${this.dashboard}\n${this.environment}\n${this.protocol}`;
      const url = () => adapter.src(this.srcTemplate, { dashboard: this.dashboard!, environment: this.environment, token }, this.#vars);
      // The src changes with the dashboard, template, environment or protocol; a new token changes
      // it only when the token is in the URL, and then a hidden second frame loads it (no blank frame).
      if (key !== this.#srcKey || !this.#srcs[cur] || (adapter.swap && token !== this.#srcToken && !this.#loaded)) {
        const next = url();
        this.#dropSwap();
        this.#srcKey = key;
        this.#srcs[cur] = next?.href;
        this.#srcToken = token;
        this.#origin = next?.origin ?? '';
        this.#loaded = false;
        // A server-rendered frame is kept only when it shows exactly this URL (so exactly this
        // origin); any other is removed. If its document is in (no longer the initial about:blank,
        // which would refuse the message), it may have said ready before this element listened:
        // it is sent the token now (and again when it says ready).
        this.#own = own?.src === next?.href && !cur ? own : own?.remove();
        if ((this.#frameReady = !!this.#own && own!.contentDocument?.URL != 'about:blank')) {
          this.#sendToken();
          // What it said before this element listened, kept by the page's loader
          // (renderElementScript, which loads this script late): replayed through the same checks.
          for (const early of (globalThis as { embeddedDashboardMessages?: MessageEvent[] }).embeddedDashboardMessages ?? []) this.#onMessage(early);
        }
      } else if (adapter.swap && token && token !== this.#srcToken && token !== this.#nextToken) {
        this.#dropSwap();
        this.#srcs[cur ^ 1] = url()?.href;
        this.#nextToken = token;
        this.#swapTimer = setTimeout(() => {
          this.#dropSwap();
          this.requestUpdate();
          this.#tokens.fail(new TokenRequestError('timeout', en.error, true));
        }, FRAME_SWAP_TIMEOUT_MS);
      }
    } catch (error) {
      problem = (error as Error).message;
      this.#own = own?.remove();
      this.#dropSwap();
      this.#srcs[this.#cur] = undefined;
    }
    if (problem !== this.problem && (this.problem = problem)) {
      emit(this, 'dashboard-error', { code: 'invalid_attribute', message: problem, retryable: false });
    }
    this.#tokens.resume();
    const status = this.#tokens.status;
    this.state = problem
      ? DashboardState.error
      : !this.#loaded && (status === DashboardState.ready || status === DashboardState.refreshing)
        ? DashboardState.loading
        : status;
  }

  protected override update(changed: PropertyValues<this>): void {
    super.update(changed);
    // (An adopted frame is a slotted child of the element, outside the shadow root.)
    this.#focus ??= this.shadowRoot?.activeElement ?? this.#ownFocus();
    const state = this.state;
    const strings = this.strings ?? en;
    (this.#view ??= new ShadowView(this.renderRoot, () => this.retry())).render({
      state,
      message: this.problem || strings[state],
      retry: strings.retry,
      loaded: this.#loaded,
      // A frame the server rendered visible (no `hidden`) shows its own loading: the page may load
      // this script late, after the dashboard; no skeleton or hiding over it (§5).
      live: this.#loaded || this.#own?.hidden === false,
      adopted: !!this.#own,
      srcs: this.#srcs,
      cur: this.#cur,
      height: !this.noAutoResize && this.#height,
      title: this.label || this.dashboard || 'Dashboard',
      sandbox: this.getAttribute('sandbox'),
      loading: this.getAttribute('loading'),
    });
  }

  protected override updated(changed: PropertyValues<this>): void {
    // Until the first token answer the element keeps exactly its server-rendered attributes:
    // React (and other frameworks) compare them when they hydrate, and an added one is a mismatch.
    if (changed.has('state') && (this.state !== DashboardState.loading || this.hasAttribute('state'))) this.setAttribute('state', this.state);
    if (changed.has('variables') && this.#loaded) this.#sendVariables();
    // Focus moves only when it was inside the element (ARCHITECTURE §5.2): to the retry button when
    // the error UI appears, to the wrapper when this render removed what had it (the retry button
    // pressed, a swapped-out frame) instead of losing it to <body>.
    const had = this.#focus;
    this.#focus = null;
    const root = this.renderRoot;
    if (had) (changed.has('state') && root.querySelector('button') || (had.isConnected ? null : root.querySelector('div')))?.focus();
  }

  /**
   * Fetches a token now, forgetting past failures: what the default retry button does, for an
   * `error` slot of your own (e.g. after the user signed in again in another tab).
   */
  retry(): void {
    this.#tokens.retry();
  }

  /** @internal Called by the token controller with every token obtained. */
  tokenChanged(response: TokenResponse, reason: TokenReason): void {
    this.#sendToken();
    emit(this, 'dashboard-token', { reason, expiresAt: response.expiresAt });
  }

  /** @internal Called by the token controller with every failed request. */
  tokenFailed({ code, message, retryable }: TokenRequestError): void {
    emit(this, 'dashboard-error', { code, message, retryable });
  }

  #post(message: object | undefined): void {
    // Only the origin of our own src may read it: never '*'.
    if (message) this.#win(this.#cur)?.postMessage(message, this.#origin);
  }

  #sendToken(): void {
    const token = this.#tokens.token;
    if (this.#frameReady && token) this.#post(this.#adapter.token?.(token));
  }

  #sendVariables(): void {
    this.#post(this.#adapter.variables(this.#vars));
  }

  #resize(height: number): void {
    if (height < MIN_DASHBOARD_HEIGHT || height > MAX_DASHBOARD_HEIGHT) return;
    height = Math.ceil(height);
    if (height !== this.#height) {
      this.#height = height;
      this.requestUpdate();
      emit(this, 'dashboard-resize', { height });
    }
  }

  #onMessage = (event: MessageEvent): void => {
    const cur = this.#cur;
    const origin = this.#origin;
    if (!event.source || event.origin !== origin) return;
    const message = this.#adapter.parse(event.data);
    if (event.source === this.#win(cur ^ 1) && this.#srcs[cur ^ 1]) {
      // The hidden new frame: it replaces the visible one only once it has loaded.
      if (message?.event !== DashboardEvent.loaded) return;
      clearTimeout(this.#swapTimer);
      this.#srcs[cur] = undefined;
      // Focus in the adopted frame goes to the wrapper after the render (it is removed before it).
      this.#focus = this.#ownFocus();
      this.#own = this.#own?.remove();
      this.#cur ^= 1;
      this.#srcToken = this.#nextToken;
      // The new frame's own load, reported below.
      this.#loaded = false;
    } else if (event.source !== this.#win(cur)) return;
    switch (message?.event) {
      case DashboardEvent.readyToLoad:
        this.#frameReady = true;
        this.#sendToken();
        break;
      case DashboardEvent.loaded:
        this.#resize(message.detail.dashboardHeight);
        // Once per frame: a dashboard repeats it when sent the token it already runs on (§6).
        if (!this.#loaded) {
          this.#frameReady = this.#loaded = true;
          this.requestUpdate();
          emit(this, 'dashboard-load', {
            dashboardId: message.detail.dashboardId,
            height: this.#height ?? 0,
            loadTime: message.detail.loadTime,
          });
          if (this.variables) this.#sendVariables();
        }
        break;
      case DashboardEvent.resized:
        this.#resize(message.detail.dashboardHeight);
        break;
      case DashboardEvent.tokenExpired:
        this.#tokens.rotate();
        break;
      case DashboardEvent.variableUpdated:
        emit(this, 'dashboard-variable-change', { name: message.detail.varName, value: message.detail.newValue });
    }
  };
}
