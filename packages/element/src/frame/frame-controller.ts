import type { ReactiveController } from '@lit/reactive-element';
import { DashboardEvent, parseCustomEvent, type DashboardVariables } from '@embedded-dashboard/protocol';
import { emit } from '../events.js';
import type { FrameProtocol, FrameSession } from '../protocol/frame-protocol.js';
import { FRAME_FEATURES } from './registry.js';
import { en } from '../strings/strings.js';
import { TokenRequestError } from '../token/request-token.js';
import type { TokenController } from '../token/token-controller.js';
import { DEFAULT_ALLOW } from '../view/shadow-view.js';
import type { FrameHost, FrameOptions, FramesView } from './frame-host.js';
import { applyHeight, frozen, memoryKey } from './frame-common.js';
import { recallHeight } from './height-memory.js';

/** A new frame (token in the URL) that has not reported loaded by then is dropped; the old one stays. */
export const FRAME_SWAP_TIMEOUT_MS = 15_000;

/**
 * The dashboard frames of one element, as a reactive controller: the visible frame and, while a
 * new token in the URL loads, a hidden second one that replaces it once loaded; the frame the
 * server rendered, adopted instead of loading a second; and the messages with the visible frame,
 * checked by source and origin and posted to its exact origin only. Everything it starts is
 * stopped in `hostDisconnected`.
 */
export class FrameController implements ReactiveController {
  /** The visible frame reported loaded (once per frame). */
  loaded = false;
  /**
   * The dashboard variables: what the host set, updated by what the dashboard reported (a new
   * frozen object each change). In the URL of every new frame, sent once the frame has loaded and
   * when the host sets them.
   */
  vars: DashboardVariables = frozen({});
  readonly #host: FrameHost;
  readonly #tokens: TokenController;
  /** The two frame slots: the visible one (`cur`) and, during a swap, the one loading hidden. */
  #srcs: (string | undefined)[] = [];
  #cur = 0;
  /** The token in the visible frame's URL, and in the last frame loaded to replace it. */
  #srcToken?: string | undefined;
  #nextToken?: string | undefined;
  #swapTimer?: ReturnType<typeof setTimeout>;
  /** The posted token a `tokenExpired` was answered for by sending it again (once per token). */
  #confirmed: string | undefined;
  /** The hidden new frame's last report of another height than the visible one's (`settle` protocols). */
  #report?: MessageEvent | undefined;
  #adapter?: FrameProtocol;
  /** The visible frame's channel, for protocols that open one after the frame loads; else `undefined`. */
  session?: FrameSession | undefined;
  #origin = '';
  #srcKey?: string;
  /** The options in the visible frame's URL (or in the one loading to replace it). */
  #optionsKey?: string;
  /**
   * The frame the server rendered into the page (`<iframe slot="frame">` child), taken over
   * instead of loading a second one: it is the visible frame (slot 0) until its src changes or a
   * swap replaces it, then it is removed.
   */
  #own?: HTMLIFrameElement | null | void;
  /** The adopted frame, when it had focus as a swap removed it (before the render that follows). */
  #lostFocus?: Element | null;
  #ready = false;
  /** The height the frame has, as last applied (`undefined`: its CSS height). */
  height?: number;

  constructor(host: FrameHost, tokens: TokenController) {
    this.#host = host;
    this.#tokens = tokens;
    host.addController(this);
  }

  hostConnected(): void {
    addEventListener('message', this.#onMessage);
  }

  hostDisconnected(): void {
    removeEventListener('message', this.#onMessage);
    this.#dropSwap();
    this.#close();
  }

  /**
   * Points the visible frame at the element's URL for `adapter` when the URL changed, or loads a
   * new token that travels in the URL into the hidden frame. The element calls this in
   * `willUpdate` once its attributes are valid. New options (`locale-code`, `refresh-minutes`)
   * for a loaded frame load the same way, hidden, in every protocol. Throws what the adapter's
   * `src` throws.
   */
  show(adapter: FrameProtocol, options: FrameOptions = {}): void {
    const host = this.#host;
    const own = host.querySelector<HTMLIFrameElement>('iframe[slot=frame]');
    const cur = this.#cur;
    const token = this.#tokens.token;
    // A chart standing alone (no dashboard: a Metabase question) is the item shown: another one
    // starts over. (A chart of a dashboard does not: explo-jwt posts its token to the running frame.)
    const key = `${host.srcTemplate}\n${host.dashboard ?? '\n' + host.chart}\n${host.environment}\n${host.protocol}`;
    // A protocol that takes variables in the URL only (no message for them) loads a new frame for new ones.
    const optionsKey = `${options.localeCode}\n${options.refreshMinutes}\n${adapter.swap && !adapter.variables ? JSON.stringify(this.vars) : ''}`;
    const url = () => adapter.src(host.srcTemplate, { dashboard: host.dashboard!, environment: host.environment, token, ...options }, this.vars, host);
    this.#adapter = adapter;
    // The src changes with the dashboard, template, environment or protocol; a new token changes
    // it only when the token is in the URL, and then a hidden second frame loads it (no blank frame).
    if (key !== this.#srcKey || !this.#srcs[cur] || (((adapter.swap && token !== this.#srcToken) || optionsKey !== this.#optionsKey) && !this.loaded)) {
      const next = url();
      this.#dropSwap();
      this.#srcKey = key;
      this.#optionsKey = optionsKey;
      // A repeat view in this page session reserves the height the dashboard last reported.
      this.height = recallHeight(memoryKey(host)) ?? this.height;
      this.#srcs[cur] = next?.href;
      this.#srcToken = token;
      this.#origin = next?.origin ?? '';
      this.loaded = false;
      this.#close();
      // A vendor with a channel opens it to each document its frame loads at this URL.
      if ((this.session = next && adapter.connect?.(this, next.href, host))) this.sendToken();
      // A server-rendered frame is kept only when it shows exactly this URL (so exactly this
      // origin); any other is removed. If its document is in (no longer the initial about:blank,
      // which would refuse the message), it may have said ready before this element listened:
      // it is sent the token now (and again when it says ready).
      // Only a frame as confined as the element's own is adopted: a loaded frame keeps the sandbox
      // and allow it loaded with.
      // A frame with a channel opens it on its `load`, which an adopted frame may have had before
      // this element listened: it is not adopted.
      this.#own =
        own &&
        !adapter.connect &&
        own.src === next?.href &&
        !cur &&
        own.getAttribute('sandbox') === host.getAttribute('sandbox') &&
        own.allow === (host.allow ?? DEFAULT_ALLOW)
          ? own
          : own?.remove();
      if ((this.#ready = !!this.#own && own!.contentDocument?.URL != 'about:blank')) {
        this.sendToken();
        // What it said before this element listened, kept by the page's loader
        // (renderElementScript, which loads this script late): replayed through the same checks.
        for (const early of (globalThis as { embeddedDashboardMessages?: MessageEvent[] }).embeddedDashboardMessages ?? []) this.#onMessage(early);
      }
    } else if (optionsKey !== this.#optionsKey || (adapter.swap && token && token !== this.#srcToken && token !== this.#nextToken)) {
      this.#dropSwap();
      this.#srcs[cur ^ 1] = url()?.href;
      this.#nextToken = token;
      this.#optionsKey = optionsKey;
      this.#report = undefined;
      this.#swapTimer = setTimeout(() => {
        // A new frame that reported another height (its dashboard changed) is taken at its last report.
        if (this.#report) return this.#onMessage(this.#report, true);
        this.#dropSwap();
        host.requestUpdate();
        this.#tokens.fail(new TokenRequestError('timeout', en.error, true));
      }, FRAME_SWAP_TIMEOUT_MS);
    }
  }

  /** No frame while the attributes are unusable: the adopted one is removed too. */
  clear(): void {
    this.#own = this.#host.querySelector('iframe[slot=frame]')?.remove();
    this.#dropSwap();
    this.#close();
    this.#srcs[this.#cur] = undefined;
  }

  view(): FramesView {
    return {
      loaded: this.loaded,
      // A frame the server rendered visible (no `hidden`) shows its own loading: the page may load
      // this script late, after the dashboard; no skeleton or hiding over it (§5).
      live: this.loaded || this.#own?.hidden === false,
      adopted: !!this.#own,
      srcs: this.#srcs,
      cur: this.#cur,
      height: !this.#host.noAutoResize && this.height,
    };
  }

  /**
   * The adopted frame when it has focus (a slotted child: outside the shadow root's
   * activeElement) or had it as a swap removed it since the last call; else `null`.
   */
  focused(): Element | null {
    const had = this.#lostFocus ?? this.#ownFocus();
    this.#lostFocus = null;
    return had;
  }

  /** Hands the token to the frame, once it is ready for one (protocols that post it). */
  sendToken(): void {
    const token = this.#tokens.token;
    if (token && this.session) this.session.token(token);
    else if (this.#ready && token) this.#post(this.#adapter?.token?.(token));
  }

  sendVariables(): void {
    this.#post(this.#adapter?.variables?.(this.vars));
  }

  #close(): void {
    this.session = this.session?.close();
  }

  /** The host set new variables (checked): they replace all the current ones. */
  setVariables(variables: DashboardVariables): void {
    this.vars = frozen(variables);
  }

  #ownFocus(): Element | null {
    return this.#own?.matches(':focus') ? this.#own : null;
  }

  #win(slot: number): Window | null | undefined {
    return ((!slot && this.#own) || this.#host.renderRoot.querySelector<HTMLIFrameElement>('#f' + slot))?.contentWindow;
  }

  #dropSwap(): void {
    clearTimeout(this.#swapTimer);
    this.#srcs[this.#cur ^ 1] = undefined;
  }

  #post(message: object | undefined, slot = this.#cur): void {
    // Only the origin of our own src may read it: never '*'.
    if (message) this.#win(slot)?.postMessage(message, this.#origin);
  }

  /** The dashboard's height: applied within the bounds, remembered, `dashboard-resize`. */
  resize(height: number): void {
    this.height = applyHeight(this.#host, this.height, height) ?? this.height;
  }

  failed(code: string, message: string): void {
    // Without a token yet the token's own failure and retries stand (the frame could not start).
    if (!this.loaded && this.#tokens.token) this.#tokens.fail(new TokenRequestError(code, message, false));
  }

  /** The dashboard is shown (`dashboard-load` once per frame): from its lifecycle events, or a vendor session. */
  shown(dashboardId: string, height: number | undefined, loadTime: number): void {
    if (height !== undefined) this.resize(height);
    // Once per frame: a dashboard repeats it when sent the token it already runs on (§6).
    if (!this.loaded) {
      // A frame that started after all (loaded again): its renewals start over from a fresh token.
      if (this.#tokens.error?.code === 'frame_refused') this.#tokens.retry();
      this.#ready = this.loaded = true;
      this.#host.requestUpdate();
      emit(this.#host, 'dashboard-load', { dashboardId, height: this.height ?? 0, loadTime });
      if (Object.keys(this.vars).length) this.sendVariables();
    }
  }

  #onMessage = (event: MessageEvent, force?: boolean): void => {
    const cur = this.#cur;
    if (!event.source || event.origin !== this.#origin) return;
    const message = this.#adapter?.parse(event.data);
    if (event.source === this.#win(cur ^ 1) && this.#srcs[cur ^ 1]) {
      // The hidden new frame: handed the token when it asks (protocols that post it), and
      // replaces the visible one only once it has loaded.
      const token = this.#tokens.token;
      if (message?.event === DashboardEvent.readyToLoad && token) this.#post(this.#adapter?.token?.(token), cur ^ 1);
      if (message?.event !== DashboardEvent.loaded) return;
      // A `settle` protocol's frame reports before its content is in: it waits for the visible one's height (or the timeout).
      if (this.#adapter!.settle && !force && Math.abs(message.detail.dashboardHeight - this.height!) > 1) return void (this.#report = event);
      clearTimeout(this.#swapTimer);
      this.#srcs[cur] = undefined;
      // Focus in the adopted frame goes to the wrapper after the render (it is removed before it).
      this.#lostFocus = this.#ownFocus();
      this.#own = this.#own?.remove();
      this.#cur ^= 1;
      this.#srcToken = this.#nextToken;
      // The new frame's own load, reported below.
      this.loaded = false;
    } else if (event.source !== this.#win(cur)) return;
    switch (message?.event) {
      case DashboardEvent.readyToLoad:
        // The height it will have, when it says so: sized now, not when it has loaded.
        if (message.detail.dashboardHeight) this.resize(message.detail.dashboardHeight);
        this.#ready = true;
        this.sendToken();
        break;
      case DashboardEvent.loaded:
        // A frame that does not name its dashboard shows the element's (or its chart standing alone: a Metabase question).
        this.shown(message.detail.dashboardId || this.#host.dashboard || this.#host.chart!, message.detail.dashboardHeight, message.detail.loadTime);
        break;
      case DashboardEvent.resized:
        this.resize(message.detail.dashboardHeight);
        break;
      case DashboardEvent.tokenExpired:
        // A swap protocol's visible frame runs on the token its URL named. A `repeats` frame is
        // sent the token once more first: a report that crossed it on its way (a renewal ended the
        // one before) is answered `dashboardLoaded`, a dead token `tokenExpired` again.
        if (this.#adapter?.swap) this.#tokens.rotate(this.#srcToken);
        else if (this.#adapter?.repeats && this.#confirmed !== (this.#confirmed = this.#tokens.token)) this.sendToken();
        else this.#tokens.rotate();
        break;
      case DashboardEvent.variableUpdated: {
        // Checked as a whole by the parser (limits, no prototype keys); the whole checked again.
        const { varName, newValue } = message.detail;
        const next = FRAME_FEATURES.variables?.update(this.vars, varName, newValue);
        if (!next) return;
        this.vars = frozen(next);
        emit(this.#host, 'dashboard-variable-change', { name: varName, value: newValue });
        break;
      }
      case undefined: {
        // Not a lifecycle event: the vendor's own event, when its adapter reads one; else the
        // dashboard's own (a JS Event Button's, analyticsEventFired), when JSON within the limits;
        // a protocol with a channel has none in window messages.
        const adapter = this.#adapter!;
        const custom = !adapter.connect && !adapter.event?.(event.data, this.#host) && parseCustomEvent(event.data, adapter.lifecycle);
        if (custom) emit(this.#host, 'dashboard-custom-event', custom);
      }
    }
  };
}
