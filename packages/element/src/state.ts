/** The states of `<embedded-dashboard>`, reflected as its `state` attribute. */
export const DashboardState = {
  /** Waiting for the first token or for the dashboard to say it has loaded. */
  loading: 'loading',
  /** The dashboard is loaded with a valid token. */
  ready: 'ready',
  /** The dashboard is loaded; a new token is being fetched (or retried after a transient failure). */
  refreshing: 'refreshing',
  /** Invalid attributes, a refused request, or no token yet after a transient failure (retrying). */
  error: 'error',
  /** The BFF answered 401: the session is missing or expired. Refreshing has stopped. */
  unauthenticated: 'unauthenticated',
} as const;
export type DashboardState = (typeof DashboardState)[keyof typeof DashboardState];
