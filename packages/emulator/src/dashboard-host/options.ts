import type { Environment, UserGroupProperties } from '@embedded-dashboard/protocol';

/** What the dashboard host needs to know about the group a user group token belongs to. */
export interface DashboardGroupView {
  name: string;
  providedId: string;
  properties: UserGroupProperties;
  environment: Environment;
}

/**
 * What an embed token (the vendor's JWT with a JWE body) stands for, as the host's
 * `resolveEmbedToken` finds it: accepted, expired (decrypted, but its `exp` has passed or it was
 * revoked: the page asks its host for a new one), or refused (anything else: a wrong key, a
 * tampered token, an unknown customer; `message` says which, never the token).
 */
export type EmbedTokenView =
  | { status: 'ok'; dashboardId: string; issuer: string | undefined; group: DashboardGroupView; expiresInMs: number; chartId?: string }
  | { status: 'expired'; dashboardId: string; issuer: string | undefined; chartId?: string }
  | { status: 'refused'; message: string };

/** Options of `dashboardHostRoutes`. */
export interface DashboardHostOptions {
  /**
   * Origins allowed to frame the dashboards and to talk to them: exact origins, or
   * `scheme://host:*` for any port of a host. Example: `['http://localhost:*', 'https://app.example.com']`.
   */
  embedOrigins: string[];
  /** The group a user group token belongs to, or `undefined` when the token is not accepted. */
  resolveToken(token: string): DashboardGroupView | undefined;
  /** How often the page re-fetches its data, in ms. Default 15 000. */
  dataRefreshMs?: number;
  /**
   * Reads an embed token (`/iframe/<jwt>/<environment>` and a JWE bearer token on the data
   * route). Absent: embed tokens are refused.
   */
  resolveEmbedToken?(jwt: string): Promise<EmbedTokenView>;
}

const DEFAULT_DATA_REFRESH_MS = 15_000;
const MIN_DATA_REFRESH_MS = 10;
const MAX_DATA_REFRESH_MS = 86_400_000;

const ORIGIN_PATTERN = /^https?:\/\/(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*|\[[0-9a-f:.]+\])(?::(?:\d{1,5}|\*))?$/;

export interface ResolvedDashboardHostOptions {
  embedOrigins: string[];
  resolveToken(token: string): DashboardGroupView | undefined;
  dataRefreshMs: number;
  resolveEmbedToken: ((jwt: string) => Promise<EmbedTokenView>) | undefined;
}

/**
 * Checks the options once, up front. A bad origin would end up in a CSP header and in the
 * page's allow-list, so it is refused rather than passed through.
 */
export function resolveDashboardHostOptions(options: DashboardHostOptions): ResolvedDashboardHostOptions {
  if (!Array.isArray(options.embedOrigins) || options.embedOrigins.length === 0) {
    throw new TypeError('dashboardHostRoutes: options.embedOrigins must list at least one origin');
  }
  const embedOrigins = options.embedOrigins.map((origin) => {
    const normalized = typeof origin === 'string' ? origin.trim().toLowerCase() : '';
    if (!ORIGIN_PATTERN.test(normalized) || normalized.length > 300) {
      throw new TypeError(`dashboardHostRoutes: options.embedOrigins has an invalid origin ${JSON.stringify(origin)} (expected scheme://host[:port|:*])`);
    }
    return normalized;
  });
  if (typeof options.resolveToken !== 'function') throw new TypeError('dashboardHostRoutes: options.resolveToken must be a function');
  const dataRefreshMs = options.dataRefreshMs ?? DEFAULT_DATA_REFRESH_MS;
  if (!Number.isInteger(dataRefreshMs) || dataRefreshMs < MIN_DATA_REFRESH_MS || dataRefreshMs > MAX_DATA_REFRESH_MS) {
    throw new TypeError(`dashboardHostRoutes: options.dataRefreshMs must be an integer from ${MIN_DATA_REFRESH_MS} to ${MAX_DATA_REFRESH_MS}`);
  }
  if (options.resolveEmbedToken !== undefined && typeof options.resolveEmbedToken !== 'function') {
    throw new TypeError('dashboardHostRoutes: options.resolveEmbedToken must be a function');
  }
  return { embedOrigins: [...new Set(embedOrigins)], resolveToken: options.resolveToken, dataRefreshMs, resolveEmbedToken: options.resolveEmbedToken };
}
