'use client';
import { createElement, useCallback, useLayoutEffect, useRef, type HTMLAttributes, type ReactElement, type Ref } from 'react';
import '@embedded-dashboard/element';
// The reportTimings prop's module (a kilobyte): what the element's own bundles leave out.
import '@embedded-dashboard/element/timings';
// The traceContext prop's module (the traceparent of token requests), also outside the element's bundles.
import '@embedded-dashboard/element/trace-context';
import type {
  DashboardCustomEvent,
  DashboardErrorEvent,
  DashboardLoadEvent,
  DashboardResizeEvent,
  DashboardTokenEvent,
  DashboardVariableChangeEvent,
  EmbeddedDashboard as EmbeddedDashboardElement,
  FetchToken,
} from '@embedded-dashboard/element';
// A type only: the Metabase entry itself is the page's to import (each page ships only its vendor's code).
import type { DashboardLocationEvent } from '@embedded-dashboard/element/metabase';
import type { DashboardVariables } from '@embedded-dashboard/protocol';

/** The element's own props; React's handlers of the same names are replaced by the element's events. */
type ElementEventProps = 'onLoad' | 'onToken' | 'onError' | 'onResize' | 'onVariableChange' | 'onCustomEvent' | 'onLocation';

type Handlers = Pick<EmbeddedDashboardProps, ElementEventProps>;
const EVENTS: ReadonlyArray<readonly [string, ElementEventProps]> = [
  ['dashboard-load', 'onLoad'],
  ['dashboard-token', 'onToken'],
  ['dashboard-error', 'onError'],
  ['dashboard-resize', 'onResize'],
  ['dashboard-variable-change', 'onVariableChange'],
  ['dashboard-custom-event', 'onCustomEvent'],
  ['dashboard-location', 'onLocation'],
];

/**
 * Props of {@link EmbeddedDashboard}: the element's attributes in camelCase, its events as `on…`
 * props. What it shows: a `dashboard` (and, under `protocol="explo-jwt"`, one `chart` of it), or,
 * under `protocol="metabase"`, a question: `chart` alone (`/embed/question/<token>`), never both.
 */
export type EmbeddedDashboardProps = EmbeddedDashboardOptions &
  (
    | {
        /** Id of the dashboard to show. */
        dashboard: string;
        /** Id of one chart of it, shown alone (`protocol="explo-jwt"`; the BFF needs `EMBED_JWT_MINT=vendor`). */
        chart?: string;
      }
    | {
        dashboard?: undefined;
        /** Id of the Metabase question to show instead of a dashboard (`EMBED_METABASE_QUESTIONS` on the BFF). */
        chart: string;
        protocol: 'metabase';
      }
  );

/** The props besides what is shown (`dashboard`, `chart`): see {@link EmbeddedDashboardProps}. */
export interface EmbeddedDashboardOptions extends Omit<HTMLAttributes<EmbeddedDashboardElement>, ElementEventProps> {
  /**
   * How the element talks to the frame: `message` (default), `explo` or `explo-jwt` (the vendor's
   * embed tokens; needed for `chart`), or `superset` (Apache Superset's embedded dashboards: import
   * `@embedded-dashboard/element/superset` once in the app, which registers it; its attributes,
   * `hide-title` and the others, pass through as written), or `metabase` (Metabase's guest embeds:
   * `@embedded-dashboard/element/metabase`, likewise; `bordered`, `titled` and the others pass through).
   */
  protocol?: 'message' | 'explo' | 'explo-jwt' | 'superset' | 'metabase';
  /** Iframe URL with `{dashboard}`, `{environment}` and optionally `{token}`. */
  srcTemplate: string;
  /** The BFF's token route. Default `/embed/token`. */
  tokenUrl?: string;
  /** Substituted for `{environment}`. */
  environment?: string;
  /**
   * Dashboard variables of every documented shape (arrays for multi-selects, JSON objects), within
   * the element's limits; compared by value, so a new object with the same content changes nothing.
   * What the viewer changes arrives in `onVariableChange` and the element's `currentVariables`.
   */
  variables?: DashboardVariables;
  /** The dashboard's locale, a BCP 47 tag (the iframe's `locale_code`); a change reloads the frame without blanking it. */
  localeCode?: string;
  /** Minutes between the dashboard's data refreshes, 1-1440 (the iframe's `refresh-minutes`). */
  refreshMinutes?: number;
  /** Accessible name of the iframe. Default: the dashboard id. */
  label?: string;
  /** The iframes' `sandbox` tokens (at least `allow-scripts allow-same-origin`); unset = no sandbox. Read when a frame is made. */
  sandbox?: string;
  /** The iframes' `allow` (Permissions Policy), e.g. `fullscreen; clipboard-write`. Default `fullscreen`. */
  allow?: string;
  /** Seconds before `expiresAt` at which the token is refreshed. Default `60`. */
  refreshMargin?: number;
  /** Keep the frame at `--embedded-dashboard-height` instead of the dashboard's height. */
  noAutoResize?: boolean;
  /** Send cookies to a cross-origin `tokenUrl`. */
  withCredentials?: boolean;
  /** Beacon each load's and renewal's timings to the BFF's `…/timings` beside `tokenUrl` (`report-timings`). */
  reportTimings?: boolean;
  /** Send a fresh W3C `traceparent` with each token and rotate request (`trace-context`). */
  traceContext?: boolean;
  /** Gets tokens another way than POSTing `tokenUrl` (client only; set it on the first render). */
  fetchToken?: FetchToken;
  /** `dashboard-load`: `{ dashboardId, height, loadTime }`. */
  onLoad?: (event: DashboardLoadEvent) => void;
  /** `dashboard-token`: `{ reason, expiresAt }` (never the token). */
  onToken?: (event: DashboardTokenEvent) => void;
  /** `dashboard-error`: `{ code, message, retryable }`. */
  onError?: (event: DashboardErrorEvent) => void;
  /** `dashboard-resize`: `{ height }`. */
  onResize?: (event: DashboardResizeEvent) => void;
  /** `dashboard-variable-change`: `{ name, value }`, `value` of any JSON shape (an array from a multi-select). */
  onVariableChange?: (event: DashboardVariableChangeEvent) => void;
  /** `dashboard-custom-event`: `{ name, detail }`, the dashboard's own event (a JS Event Button's, `analyticsEventFired`). */
  onCustomEvent?: (event: DashboardCustomEvent) => void;
  /** `dashboard-location` (`protocol="metabase"`): `{ search, hash }` of where the viewer took the frame, never the token. */
  onLocation?: (event: DashboardLocationEvent) => void;
  /** The `<embedded-dashboard>` element (for `retry()`, `state`, …). */
  ref?: Ref<EmbeddedDashboardElement>;
}

/**
 * `<embedded-dashboard>` as a React 19 component. A client component (`'use client'`): use it
 * from Server Components with serializable props, and pass event handlers from a client
 * component. The server renders the element with its attributes, so the element starts as
 * soon as its script runs, before hydration; hydration attaches the event listeners.
 *
 * React 19 itself passes a custom element's props (properties when the element has them,
 * attributes otherwise); this component maps the camelCase props onto the element's attributes,
 * serializes `variables` (so it reaches the server-rendered HTML too), and adds the event
 * listeners itself, since React 19 does not attach `on<event>` props of custom elements while
 * hydrating. Events the element fired before hydration are not replayed: read `state` from the ref.
 *
 * @example
 * ```tsx
 * <EmbeddedDashboard dashboard="sales-overview"
 *   srcTemplate="https://dashboards.example.com/iframe/{dashboard}"
 *   variables={{ region: 'EU' }}
 *   onLoad={(e) => console.log('loaded in', e.detail.loadTime, 'ms')}
 *   onError={(e) => console.warn(e.detail.code)} />
 * ```
 */
export function EmbeddedDashboard(props: EmbeddedDashboardProps): ReactElement {
  const {
    dashboard,
    chart,
    protocol,
    srcTemplate,
    tokenUrl,
    environment,
    variables,
    localeCode,
    refreshMinutes,
    label,
    sandbox,
    allow,
    refreshMargin,
    noAutoResize,
    withCredentials,
    reportTimings,
    traceContext,
    fetchToken,
    onLoad,
    onToken,
    onError,
    onResize,
    onVariableChange,
    onCustomEvent,
    onLocation,
    ref,
    ...rest
  } = props;
  const element = useRef<EmbeddedDashboardElement | null>(null);
  const handlers = useRef<Handlers>({});
  // Layout effects run before the element's first (microtask) update, so no event is missed on a
  // client render; on hydration this is where listeners come from at all: React 19 does not
  // attach a custom element's on<event> props while hydrating (facebook/react#35446).
  useLayoutEffect(() => {
    handlers.current = { onLoad, onToken, onError, onResize, onVariableChange, onCustomEvent, onLocation };
    if (fetchToken && element.current && element.current.fetchToken !== fetchToken) element.current.fetchToken = fetchToken;
  });
  useLayoutEffect(() => {
    const el = element.current!;
    const listeners = EVENTS.map(([type, key]) => {
      const listener = (event: Event) => (handlers.current[key] as ((event: Event) => void) | undefined)?.(event);
      el.addEventListener(type, listener);
      return () => el.removeEventListener(type, listener);
    });
    return () => listeners.forEach((remove) => remove());
  }, []);
  const setRef = useCallback(
    (node: EmbeddedDashboardElement | null) => {
      element.current = node;
      if (typeof ref === 'function') return ref(node);
      if (ref) (ref as { current: EmbeddedDashboardElement | null }).current = node;
      return undefined;
    },
    [ref],
  );
  return createElement('embedded-dashboard', {
    ...rest,
    ref: setRef,
    dashboard,
    chart,
    protocol,
    'src-template': srcTemplate,
    'token-url': tokenUrl,
    environment,
    // A string, so the server renders it and equal content is an equal prop.
    variables: variables === undefined ? undefined : JSON.stringify(variables),
    'locale-code': localeCode,
    'refresh-minutes': refreshMinutes,
    label,
    // Attributes, so the server renders them: the element gives them to a frame before it loads.
    sandbox,
    allow,
    'refresh-margin': refreshMargin,
    'no-auto-resize': noAutoResize || undefined,
    'with-credentials': withCredentials || undefined,
    'report-timings': reportTimings || undefined,
    'trace-context': traceContext || undefined,
    // Set before the element connects on a client render (React 19 sets it as a property).
    fetchToken,
  });
}
