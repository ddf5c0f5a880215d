/**
 * `@embedded-dashboard/bff/superset`: Apache Superset's guest tokens behind the BFF's token
 * routes. Pass `supersetVendor({...})` as `createBffApp`'s `vendor`.
 */
export { supersetVendor } from './superset-vendor.js';
export type { SupersetVendorOptions, SupersetRlsRuleTemplate, SupersetGuestUserClaims, SupersetGuestTokenApi, SupersetServiceSessionLike } from './options.js';
