export { embeddedDashboard, SRC_TEMPLATE_ENV, DEV_SESSION_COOKIE } from './plugin.js';
export { SAMPLE_CUSTOMERS } from './dev-customers.js';
export { DEV_SIGN_IN_PATH } from './dev-sign-in.js';
export type { EmbeddedDashboardPluginOptions } from './options.js';
export type { DevCustomer } from './dev-customers.js';
