import type { ReactiveController } from '@lit/reactive-element';
import type { DashboardVariables } from '@embedded-dashboard/protocol';
import { emit } from '../events.js';
import type { FrameProtocol, FrameSession } from '../protocol/frame-protocol.js';
import { TokenRequestError } from '../token/request-token.js';
import type { TokenController } from '../token/token-controller.js';
import { applyHeight, frozen, memoryKey } from './frame-common.js';
import type { FrameHost, FrameOptions, FramesView } from './frame-host.js';
import { recallHeight } from './height-memory.js';

const NONE: DashboardVariables = frozen({});

/**
 * The frame of one element for protocols with a channel only (`connect`: Superset's), as a
 * reactive controller: one frame, never swapped (its tokens go over the channel) nor adopted (its
 * channel opens on a `load` an adopted frame may have had already), no window messages (the
 * session has its port) and no variables. What an entry with such protocols alone registers
 * (`FRAME_FEATURES.frames`), instead of `FrameController`, which does all this and the rest for
 * the protocols that need it and replaces this one when an entry registers it.
 */
export class ChannelFrames implements ReactiveController {
  /** Replaced by the full controller when both are registered. */
  static readonly lean = true;
  loaded = false;
  readonly vars = NONE;
  height?: number;
  session?: FrameSession | undefined;
  readonly #host: FrameHost;
  readonly #tokens: TokenController;
  #src?: string | undefined;
  #key?: string;

  constructor(host: FrameHost, tokens: TokenController) {
    this.#host = host;
    this.#tokens = tokens;
    host.addController(this);
  }

  hostDisconnected(): void {
    this.session = this.session?.close();
  }

  /** Points the frame at the element's URL for `adapter` when it changed, and opens the adapter's session for it. */
  show(adapter: FrameProtocol, options: FrameOptions = {}): void {
    const host = this.#host;
    host.querySelector('iframe[slot=frame]')?.remove();
    const key = `${host.srcTemplate}\n${host.dashboard}\n${host.environment}\n${host.protocol}\n${options.localeCode}\n${options.refreshMinutes}`;
    if (key === this.#key && this.#src) return;
    const next = adapter.src(host.srcTemplate, { dashboard: host.dashboard!, environment: host.environment, ...options }, this.vars, host);
    this.#key = key;
    this.height = recallHeight(memoryKey(host)) ?? this.height;
    this.#src = next?.href;
    this.loaded = false;
    this.hostDisconnected();
    if ((this.session = next && adapter.connect?.(this, next.href, host))) this.sendToken();
  }

  clear(): void {
    this.#host.querySelector('iframe[slot=frame]')?.remove();
    this.hostDisconnected();
    this.#src = undefined;
  }

  view(): FramesView {
    return { loaded: this.loaded, live: this.loaded, adopted: false, srcs: [this.#src], cur: 0, height: !this.#host.noAutoResize && this.height };
  }

  focused(): Element | null {
    return null;
  }

  sendToken(): void {
    const token = this.#tokens.token;
    if (token) this.session?.token(token);
  }

  sendVariables(): void {}

  setVariables(): void {}

  resize(height: number): void {
    this.height = applyHeight(this.#host, this.height, height) ?? this.height;
  }

  failed(code: string, message: string): void {
    // Without a token yet the token's own failure and retries stand (the frame could not start).
    if (!this.loaded && this.#tokens.token) this.#tokens.fail(new TokenRequestError(code, message, false));
  }

  shown(dashboardId: string, height: number | undefined, loadTime: number): void {
    if (height !== undefined) this.resize(height);
    if (!this.loaded) {
      // A frame that started after all (loaded again): its renewals start over from a fresh token.
      if (this.#tokens.error?.code === 'frame_refused') this.#tokens.retry();
      this.loaded = true;
      this.#host.requestUpdate();
      emit(this.#host, 'dashboard-load', { dashboardId, height: this.height ?? 0, loadTime });
    }
  }
}
