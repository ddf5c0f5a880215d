/**
 * `@embedded-dashboard/client/superset`: Apache Superset's security API as the BFF's Superset
 * adapter calls it (the service account's login, the CSRF token and its cookie, guest tokens).
 */
export { SupersetClient, SupersetSessionRejectedError, jwtExpiresAt, cookiesOf } from './superset-client.js';
export type { SupersetClientOptions, SupersetServiceSession, SupersetGuestToken } from './superset-client.js';
