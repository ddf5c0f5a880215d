/**
 * Apache Superset's embedded-dashboard wire (verified against Superset 6.1.0's built frame,
 * `superset/static/assets/embedded.*.entry.js`, and the npm packages `@superset-ui/embedded-sdk`
 * 0.4.0 and `@superset-ui/switchboard` 0.20.3; packages/protocol/README.md, "Superset"): the
 * handshake that hands the frame a `MessagePort`, the switchboard envelope spoken over that port,
 * the method names each side defines, and the `uiConfig` bits of the frame URL. Shared by the
 * element's Superset protocol and the emulator's Superset frame, so the two cannot drift apart.
 * Names only, no behaviour: the parsers live with their users.
 */

/**
 * The `type` of the one `window.postMessage` the host sends the frame after its `load` event,
 * `{ type, handshake: 'port transfer' }` with a `MessagePort` as its only transfer. The frame
 * ignores every window message of another type, and then speaks only over the port.
 */
export const SUPERSET_COMMS_TYPE = '__embedded_comms__';

/** The handshake's `handshake` field. */
export const SUPERSET_PORT_TRANSFER = 'port transfer';

/** The handshake message, as posted to the frame's exact origin with the port transferred. */
export interface SupersetHandshake {
  readonly type: typeof SUPERSET_COMMS_TYPE;
  readonly handshake: typeof SUPERSET_PORT_TRANSFER;
}

/** The handshake message (a fresh object: it is structured-cloned, never shared). */
export const supersetHandshake = (): SupersetHandshake => ({ type: SUPERSET_COMMS_TYPE, handshake: SUPERSET_PORT_TRANSFER });

/**
 * `switchboardAction` of a message on the port: `get` asks a method for an answer (`messageId`
 * names it), `reply` and `error` answer a `get` by that id, `emit` calls a method and expects no
 * answer.
 */
export const SwitchboardAction = {
  get: 'get',
  reply: 'reply',
  emit: 'emit',
  error: 'error',
} as const;
export type SwitchboardAction = (typeof SwitchboardAction)[keyof typeof SwitchboardAction];

/** `get`: call `method` on the other side with `args` and answer by `messageId`. */
export interface SwitchboardGet {
  readonly switchboardAction: typeof SwitchboardAction.get;
  readonly method: string;
  /** Unique per sender and channel (the SDK's are `m_<name>_<n>`). */
  readonly messageId: string;
  readonly args?: unknown;
}

/** The answer to a `get`. */
export interface SwitchboardReply {
  readonly switchboardAction: typeof SwitchboardAction.reply;
  readonly messageId: string;
  readonly result: unknown;
}

/** A `get` that failed: the method is not defined, or threw (`error` is a sentence, not data). */
export interface SwitchboardError {
  readonly switchboardAction: typeof SwitchboardAction.error;
  readonly messageId: string;
  readonly error: string;
}

/** `emit`: call `method` with `args`; no answer. */
export interface SwitchboardEmit {
  readonly switchboardAction: typeof SwitchboardAction.emit;
  readonly method: string;
  readonly args?: unknown;
}

export type SwitchboardMessage = SwitchboardGet | SwitchboardReply | SwitchboardError | SwitchboardEmit;

/**
 * Methods the frame defines (the host calls them): `guestToken` by `emit` with `{ guestToken }`
 * (the first renders the dashboard, a later one swaps the token in the running frame, no reload);
 * the others by `get`. `getScrollSize` answers `{ width, height }` of the frame's `document.body`
 * scroll size (before Superset PR #44313 that is at least the frame's own height, so a host that
 * applies it as is grows the frame without end); `getDataMask` the native and cross filters'
 * state by filter id; `getActiveTabs` the ids of the tabs shown; `getDashboardPermalink` with
 * `{ anchor }` a permalink URL string.
 */
export const SupersetFrameMethod = {
  guestToken: 'guestToken',
  getScrollSize: 'getScrollSize',
  getDashboardPermalink: 'getDashboardPermalink',
  getActiveTabs: 'getActiveTabs',
  getDataMask: 'getDataMask',
  getChartStates: 'getChartStates',
  getChartDataPayloads: 'getChartDataPayloads',
  setThemeConfig: 'setThemeConfig',
  setThemeMode: 'setThemeMode',
} as const;
export type SupersetFrameMethod = (typeof SupersetFrameMethod)[keyof typeof SupersetFrameMethod];

/**
 * Methods the host defines (the frame calls them): `observeDataMask` by `emit`, only when the
 * frame URL's `uiConfig` has `emitDataMasks`, with the data mask and `{ crossFiltersChanged,
 * nativeFiltersChanged }` merged into one object; `resolvePermalinkUrl` by `get` with `{ key }`
 * (answer a URL string, or `null` for the frame's own).
 */
export const SupersetHostMethod = {
  observeDataMask: 'observeDataMask',
  resolvePermalinkUrl: 'resolvePermalinkUrl',
} as const;
export type SupersetHostMethod = (typeof SupersetHostMethod)[keyof typeof SupersetHostMethod];

/** `guestToken`'s arguments. */
export interface SupersetGuestTokenArgs {
  readonly guestToken: string;
}

/** `getScrollSize`'s answer. */
export interface SupersetScrollSize {
  readonly width: number;
  readonly height: number;
}

/**
 * The `uiConfig` query parameter of the frame URL (`/embedded/<uuid>?uiConfig=<n>`): the sum of
 * these bits. 4 is unused by the SDK.
 */
export const SupersetUiConfig = {
  hideTitle: 1,
  hideTab: 2,
  hideChartControls: 8,
  emitDataMasks: 16,
  showRowLimitWarning: 32,
} as const;
export type SupersetUiConfigFlag = keyof typeof SupersetUiConfig;

/** Query parameters of the frame URL for the native filter bar: `true` or `false`. */
export const SUPERSET_FILTER_PARAMS = {
  visible: 'show_filters',
  expanded: 'expand_filters',
} as const;
