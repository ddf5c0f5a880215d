import { ReactiveElement, type PropertyValues } from '@lit/reactive-element';
import {
  canonicalLocale,
  DEFAULT_RENEWAL_MARGIN_MS,
  isChartId,
  isRefreshMinutes,
  type DashboardVariables,
  type TokenResponse,
} from '@embedded-dashboard/protocol';
import { styles } from './embedded-dashboard.styles.js';
import { emit } from './events.js';
import type { FrameHost, Frames } from './frame/frame-host.js';
import type { FrameSession } from './protocol/frame-protocol.js';
import { FRAME_FEATURES, FRAME_PROTOCOLS } from './frame/registry.js';
import { DashboardState } from './state.js';
import { en, type DashboardStrings } from './strings/strings.js';
import type { TokenReason, TokenRequestError } from './token/request-token.js';
import { TokenController, type FetchToken, type TokenHost } from './token/token-controller.js';
import { DEFAULT_ALLOW, ShadowView } from './view/shadow-view.js';

export { FRAME_PROTOCOLS } from './frame/registry.js';

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
 * @event {DashboardVariableChangeEvent} dashboard-variable-change - The viewer changed a variable: `{ name, value }`, the value of any JSON shape (an array from a multi-select); `currentVariables` holds it too.
 * @event {DashboardCustomEvent} dashboard-custom-event - The dashboard's own event (a JS Event Button's author-named event, `analyticsEventFired`): `{ name, detail }`, `detail` a copied JSON value within `CUSTOM_EVENT_LIMITS` (32,768 characters as JSON, depth 8); any other message from the frame is ignored.
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
export class EmbeddedDashboard extends ReactiveElement implements TokenHost, FrameHost {
  static override properties = {
    dashboard: {},
    chart: {},
    srcTemplate: { attribute: 'src-template' },
    protocol: {},
    tokenUrl: { attribute: 'token-url' },
    environment: {},
    variables: {},
    localeCode: { attribute: 'locale-code' },
    refreshMinutes: { attribute: 'refresh-minutes', type: Number },
    refreshMargin: { attribute: 'refresh-margin', type: Number },
    label: {},
    allow: {},
    noAutoResize: { attribute: 'no-auto-resize', type: Boolean },
    withCredentials: { attribute: 'with-credentials', type: Boolean },
    state: {},
    fetchToken: { attribute: false },
    strings: { attribute: false },
  };
  static override styles = styles;

  /** Id of the dashboard to show (required, except for a Metabase question: `chart` alone). Attribute `dashboard`. */
  declare dashboard?: string;
  /**
   * Id of one chart of the dashboard, to show it alone (`protocol="explo-jwt"`): token requests
   * then carry `chart` and get a single-chart token (the BFF needs `EMBED_JWT_MINT=vendor`). Under
   * `protocol="metabase"` the id of a question, instead of `dashboard` (never both): token requests
   * carry `chart` alone and the frame is `/embed/question/<token>`. Checked like a dashboard id.
   * Attribute `chart`.
   */
  declare chart?: string;
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
  /**
   * Dashboard variables: a JSON object (attribute) or an object (property). Values of every
   * documented shape: strings, numbers, booleans, null, arrays (multi-select, `{"regions":["EU","US"]}`)
   * and JSON objects, within `VARIABLE_LIMITS` (depth 4, 500 items, 2,000 characters a string,
   * 8,000 characters as JSON, 100 variables); anything else, or a key `__proto__`, `constructor`
   * or `prototype`, is an `invalid_attribute` error naming the limit. In the frame URL (`explo`,
   * `explo-jwt`: `?regions=["EU","US"]`) and sent to the running frame when set again.
   */
  declare variables?: string | DashboardVariables;
  /**
   * The dashboard's locale, a BCP 47 tag (`de-DE`): the iframe URL's `locale_code`, in every
   * protocol; replaces a `locale_code` typed into `src-template`. Changing it loads the frame again,
   * hidden until loaded (no blank frame). Attribute `locale-code`.
   */
  declare localeCode?: string;
  /**
   * Minutes between the dashboard's data refreshes, a whole number from 1 to 1440: the iframe
   * URL's `refresh-minutes`, in every protocol; replaces one typed into `src-template`. Changing it
   * loads the frame again, hidden until loaded. Attribute `refresh-minutes`.
   */
  declare refreshMinutes?: number;
  /**
   * Seconds before `expiresAt` at which the token is renewed, at most a third of what is left of
   * it (a 30 s token is renewed after 20 s). Attribute `refresh-margin`. Default 60.
   */
  declare refreshMargin: number;
  /** Accessible name of the iframe; defaults to the dashboard id. */
  declare label?: string;
  /**
   * The iframes' `allow` (Permissions Policy), e.g. `fullscreen; clipboard-write`; default
   * `fullscreen`. Given to every frame before it loads (first, swapped in, adopted: a server-rendered
   * frame is adopted only with the same `allow` and `sandbox`); a change applies to the next frame.
   */
  declare allow?: string;
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

  /**
   * The dashboard variables now: what the host set (`variables`), updated by what the dashboard
   * reported (`dashboard-variable-change`). Read-only; a new frozen object after each change, never
   * the element's own state.
   */
  get currentVariables(): DashboardVariables {
    return this.#frames.vars;
  }

  /** @internal Why the attributes are unusable, when they are. */
  problem?: string;
  /** @internal The dashboard token requests name (`explo-jwt`), else `undefined`. */
  tokenScope?: string | undefined;
  /** @internal The chart token requests name (`explo-jwt` with `chart`), else `undefined`. */
  tokenChart?: string | undefined;
  readonly #tokens = new TokenController(this);
  // The frames controller the entries registered (the main entry's does everything; a lean one does what its protocols need).
  readonly #frames: Frames = new FRAME_FEATURES.frames!(this, this.#tokens);
  /**
   * What had focus in the element as the coming render began (the adopted frame when a swap
   * removed it before the render); `null` when focus was elsewhere.
   */
  #focus?: Element | null | undefined;
  #view?: ShadowView;
  /** Why `variables` is unusable, from when it was last set. */
  #variablesProblem?: string | undefined;

  constructor() {
    super();
    this.tokenUrl = '/embed/token';
    this.protocol = 'message';
    this.refreshMargin = DEFAULT_RENEWAL_MARGIN_MS / 1000;
    this.noAutoResize = this.withCredentials = false;
    this.state = DashboardState.loading;
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('tokenUrl') && changed.get('tokenUrl') !== undefined) this.#tokens.reset();
    let problem: string | undefined;
    if (changed.has('variables')) {
      try {
        // Only the entries whose protocols have variables bring their checks.
        this.#frames.setVariables(FRAME_FEATURES.variables?.parse(this.variables) ?? {});
        this.#variablesProblem = undefined;
      } catch (error) {
        this.#variablesProblem = (error as Error).message;
      }
    }
    try {
      if (this.#variablesProblem) throw new Error(this.#variablesProblem);
      const localeCode = this.localeCode ? canonicalLocale(this.localeCode) : undefined;
      if (this.localeCode && !localeCode) throw new Error('locale-code must be a BCP 47 language tag');
      const refreshMinutes = this.refreshMinutes ?? undefined;
      if (refreshMinutes !== undefined && !isRefreshMinutes(refreshMinutes)) throw new Error('refresh-minutes must be whole minutes, 1 to 1440');
      // NaN would arm no refresh timer at all; a negative margin would refresh after expiry.
      if (!(this.refreshMargin >= 0 && this.refreshMargin < Infinity)) throw new Error('refresh-margin must be 0 or more seconds');
      if (!Object.hasOwn(FRAME_PROTOCOLS, this.protocol)) throw new Error(`unknown protocol ${this.protocol}`);
      const adapter = FRAME_PROTOCOLS[this.protocol]!;
      const chart = this.chart ?? undefined;
      if (chart !== undefined) {
        if (!isChartId(chart)) throw new Error('chart must be a chart id (1-128 of A-Za-z0-9_-)');
        if (!adapter.charts)
          throw new Error(
            `chart needs protocol="${Object.keys(FRAME_PROTOCOLS)
              .filter((name) => FRAME_PROTOCOLS[name]!.charts)
              .join('" or "')}"`,
          );
      }
      // A protocol whose `chart` is an item of its own (Metabase's question) checks the two itself.
      if (!(this.dashboard || adapter.alone)) throw new Error('dashboard is required');
      // A token for one dashboard (or chart) is no token for another: a new scope starts the tokens over.
      // (None for a chart standing alone: its `dashboard` is absent, or `null` once removed.)
      const scope = (adapter.perDashboard && this.dashboard) || undefined;
      if ((scope !== this.tokenScope || chart !== this.tokenChart) && this.hasUpdated) this.#tokens.reset();
      this.tokenScope = scope;
      this.tokenChart = chart;
      this.#frames.show(adapter, { localeCode, refreshMinutes });
    } catch (error) {
      problem = (error as Error).message;
      this.#frames.clear();
    }
    if (problem !== this.problem && (this.problem = problem)) {
      emit(this, 'dashboard-error', { code: 'invalid_attribute', message: problem, retryable: false });
    }
    this.#tokens.resume();
    const status = this.#tokens.status;
    this.state = problem
      ? DashboardState.error
      : !this.#frames.loaded && (status === DashboardState.ready || status === DashboardState.refreshing)
        ? DashboardState.loading
        : status;
  }

  protected override update(changed: PropertyValues<this>): void {
    super.update(changed);
    // (An adopted frame is a slotted child of the element, outside the shadow root.)
    this.#focus = this.#frames.focused() ?? this.shadowRoot?.activeElement;
    const state = this.state;
    const strings = this.strings ?? en;
    (this.#view ??= new ShadowView(this.renderRoot, () => this.retry())).render({
      ...this.#frames.view(),
      state,
      message: this.problem || strings[state],
      retry: strings.retry,
      title: this.label || this.dashboard || 'Dashboard',
      sandbox: this.getAttribute('sandbox'),
      allow: this.allow ?? DEFAULT_ALLOW,
      loading: this.getAttribute('loading'),
    });
  }

  protected override updated(changed: PropertyValues<this>): void {
    // Until the first token answer the element keeps exactly its server-rendered attributes:
    // React (and other frameworks) compare them when they hydrate, and an added one is a mismatch.
    if (changed.has('state') && (this.state !== DashboardState.loading || this.hasAttribute('state'))) this.setAttribute('state', this.state);
    if (changed.has('variables') && this.#frames.loaded) this.#frames.sendVariables();
    // Focus moves only when it was inside the element (ARCHITECTURE §5.2): to the retry button when
    // the error UI appears, to the wrapper when this render removed what had it (the retry button
    // pressed, a swapped-out frame) instead of losing it to <body>.
    const had = this.#focus;
    this.#focus = null;
    const root = this.renderRoot;
    if (had) ((changed.has('state') && root.querySelector('button')) || (had.isConnected ? null : root.querySelector('div')))?.focus();
  }

  /**
   * Fetches a token now, forgetting past failures: what the default retry button does, for an
   * `error` slot of your own (e.g. after the user signed in again in another tab).
   */
  retry(): void {
    this.#tokens.retry();
  }

  /**
   * @internal The visible frame's channel (protocols that open one after the frame loads), for a
   * vendor's entry to wrap in typed methods; `undefined` while there is none.
   */
  get frameSession(): FrameSession | undefined {
    return this.#frames.session;
  }

  /** @internal Called by the token controller with every token obtained. */
  tokenChanged(response: TokenResponse, reason: TokenReason): void {
    this.#frames.sendToken();
    emit(this, 'dashboard-token', { reason, expiresAt: response.expiresAt });
  }

  /** @internal Called by the token controller with every failed request. */
  tokenFailed({ code, message, retryable }: TokenRequestError): void {
    emit(this, 'dashboard-error', { code, message, retryable });
  }
}
