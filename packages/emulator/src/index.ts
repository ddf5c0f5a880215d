export { createEmulator } from './emulator.js';
export { startEmulator, startSupersetEmulator, startMetabaseEmulator, DEFAULT_PORT, DEFAULT_HOST } from './server.js';
export * from './superset/index.js';
export * from './metabase/index.js';
export {
  DEFAULT_API_KEYS,
  DEFAULT_EMBED_ORIGINS,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_DASHBOARD_REFRESH_SECONDS,
  DEFAULT_CLI_RATE_LIMIT_PER_MINUTE,
} from './options.js';
export { EMULATOR_ERROR_STATUS } from './http/errors.js';
export { DataFileError } from './store/data-file.js';
export { dashboardHostRoutes, SAMPLE_DASHBOARDS } from './dashboard-host/index.js';
export type { Emulator } from './emulator.js';
export type { EmulatorOptions } from './options.js';
export type {
  StartEmulatorOptions,
  RunningEmulator,
  StartSupersetEmulatorOptions,
  RunningSupersetEmulator,
  StartMetabaseEmulatorOptions,
  RunningMetabaseEmulator,
} from './server.js';
export type { EmulatorBindings, EmulatorEnv } from './http/body.js';
export type { DashboardGroupView, DashboardHostOptions, EmbedTokenView } from './dashboard-host/index.js';
export type { EmbedSecretOption } from './embed/embed-secrets.js';
