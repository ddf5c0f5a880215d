import type { DashboardMessage, DashboardVariables, SrcValues } from '@embedded-dashboard/protocol';

/**
 * How the element talks to one vendor's dashboard frame. The element keeps every guarantee
 * (source and origin checks, exact target origin, state, events, rotation); an adapter only
 * translates: the frame URL, and messages in both directions. A new vendor is one more adapter.
 */
export interface FrameProtocol {
  /**
   * The token is part of the frame URL, so a new token needs a new frame: the element loads it
   * hidden beside the visible one and swaps them when it reports loaded. Otherwise the token is
   * posted to the running frame.
   */
  readonly swap: boolean;
  /**
   * With `swap`: the frame reports its height before its content is there (Metabase's size
   * messages, its only ones), so a new frame replaces the visible one once it reports the visible
   * one's height (±1 px: the same dashboard laid out again); one that reported another height
   * (the content changed) replaces it when the swap would time out, one that reported none is
   * dropped then.
   */
  readonly settle?: boolean;
  /**
   * Without `swap`: a renewal ends the token before (the vendor's user group token, rotated), and
   * the frame answers the token it runs on sent again with where it is (`dashboardLoaded`, or
   * `tokenExpired` again: §6). Its `tokenExpired` is then confirmed by sending the token once
   * more before rotating: a report that crossed the new token on its way is about the old one.
   */
  readonly repeats?: boolean;
  /**
   * Tokens are for one dashboard (the vendor's embed tokens): token requests name the element's
   * dashboard, and are shared (in the page and across tabs) only with elements of that dashboard.
   */
  readonly perDashboard?: boolean;
  /** Tokens may be for one chart of the dashboard (the element's `chart`): requests name it too. */
  readonly charts?: boolean;
  /**
   * With `charts`: the chart is an item of its own, shown instead of a dashboard (Metabase's
   * question): the element takes `chart` without `dashboard`, and token requests then name the
   * chart alone. (`src` refuses both: it reads them from `el`.) Without it a chart is one of the
   * dashboard's (Explo's single-chart embed) and `dashboard` is required too.
   */
  readonly alone?: boolean;
  /**
   * The frame URL, or `undefined` while it needs a token that has not arrived. Throws for a bad
   * template (or a bad vendor attribute, read from `el`: the element's core declares none).
   */
  src(template: string | undefined, values: SrcValues, variables: DashboardVariables, el: FrameAttributes): URL | undefined;
  /**
   * The names of the frame events `parse` handles (the lifecycle events): any other name from the
   * verified frame is the dashboard's own event (`dashboard-custom-event`).
   */
  readonly lifecycle: readonly string[];
  /** Untrusted `MessageEvent.data` as an event of our own protocol (ARCHITECTURE §6), or `undefined`. */
  parse(data: unknown): DashboardMessage | undefined;
  /**
   * Reads a message of the verified visible frame that `parse` did not (no lifecycle event) and
   * dispatches the vendor's own event on `target` from it, if any; returns `true` when the
   * message is the vendor's (then it is no `dashboard-custom-event`). Absent: every such message
   * may be the dashboard's own event.
   */
  event?(data: unknown, target: EventTarget): boolean;
  /** The message handing a token to the running frame; absent when the token travels in the URL. */
  token?(token: string): object;
  /** The message setting variables in the running frame; absent when the vendor takes none. */
  variables?(variables: DashboardVariables): object;
  /**
   * A vendor whose frame talks over a channel opened after it loads (a `MessagePort` handed over
   * in a handshake): called when the element points its frame at `src`; the session it returns
   * opens the channel on each `load` of the frame showing `src` (in `el`'s shadow root), gets the
   * tokens (instead of `token`) and the element's requests, and is closed when the frame's URL
   * changes or the element goes. Window messages are then only what `parse` reads.
   */
  connect?(link: FrameLink, src: string, el: FrameElement): FrameSession;
}

/** The vendor attributes an adapter reads from its element (read when the frame URL is built). */
export interface FrameAttributes {
  getAttribute(name: string): string | null;
  hasAttribute(name: string): boolean;
  /** The element's `chart` (checked as a chart id when set), for a protocol whose charts stand `alone`. */
  readonly chart?: string | undefined;
}

/**
 * What a vendor session may do with its element's frames (the element's frame controller): the
 * height is checked against the element's bounds again. A session calls nothing once closed.
 */
export interface FrameLink {
  /** The frame's height now (as last applied), or `undefined` while it has the CSS one. */
  readonly height?: number | undefined;
  /** The dashboard's height (`dashboard-resize`). */
  resize(height: number): void;
  /** The dashboard is shown, `loadTime` ms after its frame loaded: `dashboard-load` once per frame, `ready`. */
  shown(dashboardId: string, height: number | undefined, loadTime: number): void;
  /** The frame loaded but its dashboard never started (a vendor's refusal page): the error state, `code` and `message` in `dashboard-error`. */
  failed(code: string, message: string): void;
}

/** The element as a vendor session sees it: its shadow root (where its frames load) and its events. */
export interface FrameElement extends EventTarget {
  readonly renderRoot: ParentNode & EventTarget;
  readonly dashboard?: string | undefined;
}

/** A connected frame, as its vendor adapter holds it. */
export interface FrameSession {
  /** Hands a (new) token to the running frame. */
  token(token: string): void;
  /** Asks the frame `method` and resolves with its checked answer; rejects with `FrameRequestError`. */
  request(method: string, args?: unknown): Promise<unknown>;
  /** The frame is gone (replaced, removed, the element disconnected): stop everything. */
  close(): undefined;
}

/**
 * A request to the frame that failed: `not_connected` (no frame session yet), `timeout`,
 * `refused` (the frame answered with an error) or `invalid_response` (an answer over the limits
 * or of the wrong shape). Its message never holds the frame's own words.
 */
export class FrameRequestError extends Error {
  constructor(
    readonly code: 'not_connected' | 'timeout' | 'refused' | 'invalid_response',
    message: string,
  ) {
    super(message);
  }
}
