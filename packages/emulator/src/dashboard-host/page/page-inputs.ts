import type { DashboardMessage, HostMessage, VariableLimits } from '@embedded-dashboard/protocol';
import type { DashboardData } from './dashboard-data.js';
import type { ParentOriginClues } from './origin-match.js';
import type { RenderView } from './render.js';

/*
 * What the dashboard page's script (`runDashboardPage`, frame-script.ts) is given: the
 * configuration the server bakes in, the browser around it, and the self-contained helpers it is
 * assembled from (inline-script.ts).
 */

/** What the server bakes into the page. */
export interface PageConfig {
  dashboardId: string;
  /** The data route, relative to the page URL so the host works under any mount path. */
  dataUrl: string;
  embedOrigins: string[];
  dataRefreshMs: number;
  minHeight: number;
  maxHeight: number;
  defaultDetailRows: number;
  maxDetailRows: number;
  /** `VARIABLE_LIMITS` from the protocol package: variables over them, from the URL or a message, are ignored whole. */
  variableLimits: VariableLimits;
  /**
   * The dashboard before its data (sections, titles, labels, chart sizes; no group's name or
   * values), rendered inert at once so the page can say in `dashboardReadyToLoad` the height it
   * will have. For a single-chart embed token: that chart's.
   */
  layout: DashboardData;
  /**
   * `explo`: the vendor's documented embed (packages/protocol/README.md): the token comes in the
   * URL (`token`), variables from the query as JSON values, and messages use the vendor's names.
   * Absent: our own protocol (ARCHITECTURE §6).
   */
  protocol?: 'explo';
  /** The token from the URL path (explo); `null` when the path held something that is no token. */
  token?: string | null;
  /**
   * With `explo`: the URL's token is an embed token (a JWE), and `issuerOrigin` the origin its
   * `iss` names (`null`: none). The page then talks only to that origin, names it with every data
   * request (`Embed-Origin`, which the data route holds against the token's `iss`), shows a
   * refusal (403) instead of asking for a new token, and asks for one (`customerJwtExpired`) as
   * soon as the token lapses, not at the next refresh.
   */
  embedToken?: { issuerOrigin: string | null };
}

/** The browser around the page; tests hand in a fake one. */
export interface PageEnvironment {
  window: Window;
  /** The embedding window, or `null` when the page is opened on its own. */
  parent: { postMessage(message: unknown, targetOrigin: string): void } | null;
  originClues: ParentOriginClues;
  /** The page URL's query string (`?token=` and `?origin=`). */
  search: string;
  /** The page URL's fragment (`#token=`). */
  hash: string;
  /** Drops the fragment from the page's URL (its session history entry), without a navigation. */
  forgetHash(): void;
  fetch(url: string, init: RequestInit): Promise<Response>;
  /** Milliseconds since the page started loading. */
  now(): number;
  measureHeight(): number;
  observeResize(target: Element, onResize: () => void): void;
  /** Calls `tick` every `ms` milliseconds for the page's lifetime. */
  every(ms: number, tick: () => void): void;
  /** Calls `done` once, `ms` milliseconds from now. */
  after(ms: number, done: () => void): void;
}

/** The self-contained helpers the page script is assembled from. */
export interface PageLibrary {
  parseHostMessage(data: unknown, variablesProblem: (variables: unknown) => string | undefined): HostMessage | undefined;
  variablesProblem(variables: unknown, limits: VariableLimits): string | undefined;
  toVendorMessage(message: DashboardMessage): { event: string; detail: object };
  fromVendorMessage(data: unknown): unknown;
  matchesOrigin(pattern: string, origin: string): boolean;
  resolveParentOrigin(clues: ParentOriginClues, embedOrigins: readonly string[], matches: (pattern: string, origin: string) => boolean): string | undefined;
  renderDashboard(root: HTMLElement, data: DashboardData, view: RenderView): void;
}
