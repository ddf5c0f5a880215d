/**
 * `@embedded-dashboard/bff/metabase`: Metabase guest-embed (signed) tokens behind the BFF's token
 * routes. Pass `metabaseVendor({...})` as `createBffApp`'s `vendor`.
 */
export { metabaseVendor } from './metabase-vendor.js';
export type { MetabaseVendorOptions, MetabaseItemId } from './options.js';
