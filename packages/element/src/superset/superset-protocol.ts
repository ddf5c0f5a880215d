import {
  isRecord,
  resolveSrc,
  type SrcValues,
  type SUPERSET_FILTER_PARAMS,
  type SupersetFrameMethod,
  type SupersetHandshake,
  type SupersetHostMethod,
  type SupersetUiConfig,
  type SwitchboardAction,
  type SwitchboardMessage,
} from '@embedded-dashboard/protocol';
import {
  FrameRequestError,
  type FrameAttributes,
  type FrameElement,
  type FrameLink,
  type FrameProtocol,
  type FrameSession,
} from '../protocol/frame-protocol.js';
import { jsonCopy } from './json-copy.js';

/** A request to the frame (`getDataMask`, …, `getScrollSize`) that has no answer by then fails with `timeout`. */
export const SUPERSET_REQUEST_TIMEOUT_MS = 10_000;
/**
 * How often the dashboard's height is asked while the page is visible: the frame sends none by
 * itself (its only height is `getScrollSize`'s answer).
 */
export const SUPERSET_HEIGHT_POLL_MS = 1_000;
/**
 * A frame that loaded but has not answered by then never will: Superset answered its refusal page
 * (403 for a page origin not in the embedded config's allowed domains, 404 for an unknown UUID).
 */
export const SUPERSET_START_TIMEOUT_MS = 20_000;
/** Characters of `url-params`. */
export const MAX_URL_PARAMS_LENGTH = 2_000;

/*
 * The wire names and bits of packages/protocol's superset/switchboard.ts, checked against it by
 * type only, so the bundle carries each once (as literals) and not its tables.
 */
const GET: typeof SwitchboardAction.get = 'get';
const REPLY: typeof SwitchboardAction.reply = 'reply';
const EMIT: typeof SwitchboardAction.emit = 'emit';
const ERROR: typeof SwitchboardAction.error = 'error';
const GUEST_TOKEN: typeof SupersetFrameMethod.guestToken = 'guestToken';
const GET_SCROLL_SIZE: typeof SupersetFrameMethod.getScrollSize = 'getScrollSize';
const OBSERVE_DATA_MASK: typeof SupersetHostMethod.observeDataMask = 'observeDataMask';
const RESOLVE_PERMALINK: typeof SupersetHostMethod.resolvePermalinkUrl = 'resolvePermalinkUrl';
const HANDSHAKE: SupersetHandshake = { type: '__embedded_comms__', handshake: 'port transfer' };
const EMIT_DATA_MASKS: typeof SupersetUiConfig.emitDataMasks = 16;
const FILTER_PARAMS: Readonly<Record<string, (typeof SUPERSET_FILTER_PARAMS)[keyof typeof SUPERSET_FILTER_PARAMS]>> = {
  'filters-visible': 'show_filters',
  'filters-expanded': 'expand_filters',
};

/** The boolean attributes that set `uiConfig` bits (emitDataMasks is always set: the element reports the data mask). */
const UI_FLAGS: Readonly<Record<string, (typeof SupersetUiConfig)[keyof typeof SupersetUiConfig]>> = {
  'hide-title': 1,
  'hide-tab': 2,
  'hide-chart-controls': 8,
  'show-row-limit-warning': 32,
};

/** An embedded dashboard's id: the UUID Superset's "Embed dashboard" dialog gives. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The frame URL: `src-template` with `{dashboard}` (the embedded UUID), then `uiConfig` (the sum
 * of the flags set, with emitDataMasks), `show_filters` / `expand_filters` from `filters-visible`
 * / `filters-expanded` (`true` or `false`), then `url-params` (a query string, e.g.
 * `native_filters_key=abc`; it may not set `uiConfig`). The guest token never goes in the URL.
 */
function supersetSrc(template: string | undefined, values: SrcValues, _variables: unknown, el: FrameAttributes): URL | undefined {
  if (template?.includes('{token}')) throw new Error('src-template may not hold {token} under protocol="superset": the guest token goes to the running frame');
  if (!UUID.test(values.dashboard)) throw new Error('dashboard must be an embedded dashboard UUID under protocol="superset"');
  // Explo's frame options: Superset's frame has neither (and a change would wait for a hidden frame that never reports).
  if (values.localeCode !== undefined || values.refreshMinutes !== undefined)
    throw new Error('locale-code and refresh-minutes are not for protocol="superset"');
  const url = resolveSrc(template, { dashboard: values.dashboard, environment: values.environment })!;
  let bits: number = EMIT_DATA_MASKS;
  for (const name in UI_FLAGS) if (el.hasAttribute(name)) bits |= UI_FLAGS[name]!;
  url.searchParams.set('uiConfig', String(bits));
  for (const name in FILTER_PARAMS) {
    const value = el.getAttribute(name);
    if (value !== null && value !== 'true' && value !== 'false') throw new Error(`${name} must be true or false`);
    if (value !== null) url.searchParams.set(FILTER_PARAMS[name]!, value);
  }
  const extra = el.getAttribute('url-params');
  if (extra !== null) {
    if (extra.length > MAX_URL_PARAMS_LENGTH) throw new Error(`url-params must be at most ${MAX_URL_PARAMS_LENGTH} characters`);
    for (const [name, value] of new URLSearchParams(extra)) {
      if (name === 'uiConfig') throw new Error('url-params may not set uiConfig: use the hide-* attributes');
      url.searchParams.set(name, value);
    }
  }
  return url;
}

/**
 * The frame follows the dashboard's height without feeding it back: Superset's `getScrollSize`
 * reports `document.body`'s scroll height, which in Superset 6.1 is never less than the frame's
 * own height and with a vertical filter bar is the frame's height plus a constant (superset PR
 * #44313), so applying every answer grows the frame forever. The rule: an answer within 1 px of
 * the height the frame has is an echo (ignored); a growth by exactly the growth just applied is the
 * frame measuring itself (ignored, so the loop ends after one step); anything else is applied. A
 * frame that reports its content (PR #44313 onwards) is followed both ways.
 */
export function nextHeight(reported: number, current: number | undefined, lastGrowth: number): { height: number; growth: number } | undefined {
  const height = Math.ceil(reported);
  if (current === undefined) return { height, growth: 0 };
  const change = height - current;
  if (Math.abs(change) <= 1 || (change > 0 && change === lastGrowth)) return undefined;
  return { height, growth: Math.max(change, 0) };
}

/**
 * The session of one frame URL: on each `load` of the element's frame showing `src` (a new
 * document: a new port, the old one closed), the handshake to the frame's window at the exact
 * origin of `src`, then the last token, the height polls and the requests over the port; every
 * message on it checked, answers matched by id only.
 */
function connectSuperset(link: FrameLink, src: string, el: FrameElement): FrameSession {
  const origin = new URL(src).origin;
  const pending = new Map<string, { ok: (value: unknown) => void; fail: (error: FrameRequestError) => void; timer: ReturnType<typeof setTimeout> }>();
  let port: MessagePort | undefined;
  let token: string | undefined;
  let ids = 0;
  let closed = false;
  let polling: ReturnType<typeof setTimeout> | undefined;
  let shown = false;
  let growth = 0;
  let loadedAt = 0;
  /** Which document of the frame the polls are for: a poll of an earlier one stops. */
  let documents = 0;
  let polled = 0;
  let starting: ReturnType<typeof setTimeout> | undefined;
  const post = (message: SwitchboardMessage) => port?.postMessage(message);
  const fail = (error: FrameRequestError) => {
    for (const [, waiting] of pending) {
      clearTimeout(waiting.timer);
      waiting.fail(error);
    }
    pending.clear();
  };

  const request = (method: string, args?: unknown): Promise<unknown> =>
    new Promise((ok, reject) => {
      if (closed || !port) return reject(new FrameRequestError('not_connected', 'The dashboard is not connected yet'));
      const messageId = `m_embedded-dashboard_${++ids}`;
      const timer = setTimeout(() => {
        pending.delete(messageId);
        reject(new FrameRequestError('timeout', `The dashboard did not answer ${method} in time`));
      }, SUPERSET_REQUEST_TIMEOUT_MS);
      pending.set(messageId, { ok, fail: reject, timer });
      post({ switchboardAction: GET, method, messageId, args });
    });

  const poll = async (current: number): Promise<void> => {
    if (document.visibilityState !== 'hidden') {
      try {
        const size = await request(GET_SCROLL_SIZE);
        const reported = isRecord(size) ? size.height : undefined;
        if (current === documents && typeof reported === 'number' && Number.isFinite(reported)) {
          const next = nextHeight(reported, link.height, growth);
          if (next) {
            growth = next.growth;
            link.resize(next.height);
          }
          // The frame answers once its app runs: the dashboard is shown (no other sign exists).
          if (!shown) {
            shown = true;
            clearTimeout(starting);
            link.shown(el.dashboard!, undefined, Math.round(performance.now() - loadedAt));
          }
        }
      } catch {
        // No answer this time (a timeout, a refusal, a new document): asked again at the next poll.
      }
    }
    if (!closed && current === documents) polling = setTimeout(() => void poll(current), SUPERSET_HEIGHT_POLL_MS);
  };
  // The first token renders the document's dashboard: from then on its height is followed.
  const sendToken = () => {
    if (!token || !port) return;
    post({ switchboardAction: EMIT, method: GUEST_TOKEN, args: { guestToken: token } });
    if (polled !== documents) void poll((polled = documents));
  };

  const onMessage = ({ data }: MessageEvent) => {
    if (closed || !isRecord(data)) return;
    const action = data.switchboardAction;
    if (action === EMIT) {
      // The data mask merged with what changed (the frame's shape): reported apart.
      if (data.method !== OBSERVE_DATA_MASK) return;
      const mask = jsonCopy(data.args);
      if (!isRecord(mask)) return;
      const { crossFiltersChanged, nativeFiltersChanged, ...dataMask } = mask;
      el.dispatchEvent(
        new CustomEvent('dashboard-data-mask', {
          detail: { dataMask, crossFiltersChanged: crossFiltersChanged === true, nativeFiltersChanged: nativeFiltersChanged === true },
          bubbles: true,
          composed: true,
        }),
      );
      return;
    }
    const messageId = data.messageId;
    if (typeof messageId !== 'string' || messageId.length > 100) return;
    if (action === GET) {
      // The frame asks the host: permalinks stay the frame's own (null), nothing else is defined.
      post(
        data.method === RESOLVE_PERMALINK
          ? { switchboardAction: REPLY, messageId, result: null }
          : { switchboardAction: ERROR, messageId, error: 'Method is not defined' },
      );
      return;
    }
    const waiting = pending.get(messageId);
    if (!waiting) return;
    pending.delete(messageId);
    clearTimeout(waiting.timer);
    const result = action === REPLY ? jsonCopy(data.result) : undefined;
    if (result !== undefined) waiting.ok(result);
    else
      waiting.fail(
        action === ERROR
          ? new FrameRequestError('refused', 'The dashboard refused the request')
          : new FrameRequestError('invalid_response', 'The dashboard answered with no JSON value within the limits'),
      );
  };

  // `load` does not bubble: caught on its way down through the shadow root, the frames' parent.
  const onLoad = ({ target }: Event) => {
    const frame = target as HTMLIFrameElement;
    const win = frame.contentWindow;
    // The element's visible frame at this URL only (not one loading hidden to replace it).
    if (frame.localName !== 'iframe' || frame.getAttribute('src') !== src || frame.classList.contains('next') || !win) return;
    port?.close();
    documents++;
    clearTimeout(polling);
    fail(new FrameRequestError('not_connected', 'The dashboard loaded again'));
    const channel = new MessageChannel();
    port = channel.port1;
    port.onmessage = onMessage;
    // The frame takes the port from a window message of this exact shape, sent to its exact origin.
    win.postMessage(HANDSHAKE, origin, [channel.port2]);
    loadedAt = performance.now();
    arm();
    sendToken();
  };
  // From the frame pointed at src, and again from each load: a refusal page may never fire `load` in
  // the element's listener. A frame that has not started by then is reported, then loaded again
  // (Superset may have been down, or the page's origin allowed since), less often each time.
  let wait = SUPERSET_START_TIMEOUT_MS;
  const arm = () => {
    clearTimeout(starting);
    if (!shown)
      starting = setTimeout(() => {
        link.failed('frame_refused', "The dashboard did not start: Superset refused it (is this page's origin in the embedded dashboard's allowed domains?)");
        const frame = [...el.renderRoot.querySelectorAll('iframe')].find((f) => f.getAttribute('src') === src && !f.classList.contains('next'));
        if (frame) frame.src = src;
        wait = Math.min(wait * 2, SUPERSET_START_TIMEOUT_MS * 16);
        arm();
      }, wait);
  };
  arm();
  el.renderRoot.addEventListener('load', onLoad, true);

  return {
    token(next) {
      token = next;
      sendToken();
    },
    request,
    close() {
      closed = true;
      clearTimeout(polling);
      clearTimeout(starting);
      el.renderRoot.removeEventListener('load', onLoad, true);
      port?.close();
      fail(new FrameRequestError('not_connected', 'The dashboard frame is gone'));
      return undefined;
    },
  };
}

/**
 * Apache Superset's embedded dashboard (`protocol="superset"`): the frame at
 * `/embedded/<uuid>?uiConfig=…`; after each `load` a `MessagePort` handed over in the
 * `__embedded_comms__` handshake, and on it the guest token by the `guestToken` emit (a renewal is
 * one more emit: the same frame, no reload), the height by `getScrollSize` (`nextHeight`), the
 * data mask by `observeDataMask` (`dashboard-data-mask`), and the element's requests. Guest
 * tokens are per dashboard: token requests name it. The frame posts nothing to the page window,
 * so no window message is a lifecycle or custom event.
 */
export const supersetProtocol: FrameProtocol = {
  swap: false,
  perDashboard: true,
  src: supersetSrc,
  lifecycle: [],
  parse: () => undefined,
  connect: connectSuperset,
};
