import { isRecord, type JsonValue, type SupersetFrameMethod } from '@embedded-dashboard/protocol';
import { EmbeddedDashboard } from '../embedded-dashboard.js';
import { FrameRequestError } from '../protocol/frame-protocol.js';

/** One native or cross filter's state in the data mask, as the frame keeps it (fields it may add are kept). */
export interface SupersetFilterMask {
  readonly id?: string;
  readonly filterState?: { readonly value?: JsonValue; readonly label?: string; readonly [key: string]: unknown };
  readonly extraFormData?: { readonly [key: string]: JsonValue };
  readonly ownState?: { readonly [key: string]: JsonValue };
  readonly [key: string]: unknown;
}

/** The dashboard's filters by filter id (`getDataMask`, `dashboard-data-mask`). */
export type SupersetDataMask = Readonly<Record<string, SupersetFilterMask>>;

/** `dashboard-data-mask`: the viewer changed a native or cross filter (the frame's `observeDataMask`). */
export type DashboardDataMaskEvent = CustomEvent<{
  readonly dataMask: SupersetDataMask;
  readonly crossFiltersChanged: boolean;
  readonly nativeFiltersChanged: boolean;
}>;

/** Characters of a permalink anchor (a dashboard element id). */
const MAX_ANCHOR_LENGTH = 200;

const invalid = (): FrameRequestError => new FrameRequestError('invalid_response', 'The dashboard answered with the wrong shape');

/** Asks the element's frame over its port; `not_connected` while it has none (not loaded, another protocol). */
const ask = (el: EmbeddedDashboard, method: SupersetFrameMethod, args?: unknown): Promise<unknown> =>
  el.frameSession?.request(method, args) ?? Promise.reject(new FrameRequestError('not_connected', 'The dashboard is not connected yet'));

/**
 * The Superset frame's answers as typed methods of `<embedded-dashboard protocol="superset">`:
 * each asks the running frame over its port and settles within `SUPERSET_REQUEST_TIMEOUT_MS`,
 * rejecting with `FrameRequestError` (`not_connected` before the frame loaded or under another
 * protocol, `timeout`, `refused`, `invalid_response` for an answer of the wrong shape or over the
 * limits).
 */
interface SupersetMethods {
  /** The native and cross filters' state by filter id. */
  getDataMask(): Promise<SupersetDataMask>;
  /** The ids of the tabs shown. */
  getActiveTabs(): Promise<string[]>;
  /** A permalink to the dashboard as filtered now (optionally scrolled to `anchor`, an element id). */
  getDashboardPermalink(anchor?: string): Promise<string>;
}

declare module '../embedded-dashboard.js' {
  interface EmbeddedDashboard extends SupersetMethods {}
}

const methods: SupersetMethods & ThisType<EmbeddedDashboard> = {
  async getDataMask() {
    const mask = await ask(this, 'getDataMask');
    if (!isRecord(mask) || !Object.values(mask).every(isRecord)) throw invalid();
    return mask as SupersetDataMask;
  },
  async getActiveTabs() {
    const tabs = await ask(this, 'getActiveTabs');
    if (!Array.isArray(tabs) || !tabs.every((tab) => typeof tab === 'string')) throw invalid();
    return tabs;
  },
  async getDashboardPermalink(anchor) {
    if (anchor !== undefined && (typeof anchor !== 'string' || anchor.length > MAX_ANCHOR_LENGTH)) {
      throw new TypeError(`anchor must be a string of at most ${MAX_ANCHOR_LENGTH} characters`);
    }
    const url = await ask(this, 'getDashboardPermalink', { anchor });
    // A link the page may show or open: an absolute http(s) URL only, never `javascript:`.
    if (typeof url !== 'string' || !/^https?:\/\//i.test(url)) throw invalid();
    return url;
  },
};

/**
 * Gives the element class defined in the page (this module's, or another copy's from a standalone
 * script loaded first) the Superset methods it lacks.
 */
export function addSupersetMethods(target: { prototype: object } = EmbeddedDashboard): void {
  for (const [name, method] of Object.entries(methods)) {
    if (!(name in target.prototype)) Object.defineProperty(target.prototype, name, { value: method, writable: true, configurable: true });
  }
}
