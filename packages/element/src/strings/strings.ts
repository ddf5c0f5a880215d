/**
 * The texts `<embedded-dashboard>` shows and announces. Give the element any of them with its
 * `strings` property; the rest stay English. Messages of `dashboard-error` events are for
 * developers and stay English.
 */
export interface DashboardStrings {
  /** Announced while the first token and the dashboard load. */
  loading: string;
  /** Announced once the dashboard shows. */
  ready: string;
  /** Announced while a new token is fetched behind a dashboard that keeps working. */
  refreshing: string;
  /** Shown and announced when the dashboard cannot be loaded. */
  error: string;
  /** Shown and announced when the session has ended (the BFF answered 401). */
  unauthenticated: string;
  /** The retry button. */
  retry: string;
}

/** The built-in English texts. */
export const en: DashboardStrings = {
  loading: 'Loading dashboard…',
  ready: 'Dashboard ready',
  refreshing: 'Dashboard ready',
  error: 'The dashboard could not be loaded.',
  unauthenticated: 'Your session has ended. Sign in again.',
  retry: 'Retry',
};
