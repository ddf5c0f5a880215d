/** The emulator's Superset mode (ARCHITECTURE §7): Superset 6.1.0's routes the toolkit uses, its embeddable page, faults. */
export { createSupersetEmulator, type SupersetEmulator } from './app.js';
export {
  DEFAULT_SUPERSET_USERS,
  DEFAULT_SUPERSET_GUEST_SECRET,
  DEFAULT_SUPERSET_AUDIENCE,
  DEFAULT_SUPERSET_FRAME_ANCESTORS,
  SUPERSET_FAULT_OPERATIONS,
  type SupersetEmulatorOptions,
  type SupersetFaultOperation,
  type SupersetFaultSettings,
  type SupersetUserOption,
} from './options.js';
export {
  SAMPLE_SUPERSET_DASHBOARDS,
  SAMPLE_ROWS as SAMPLE_SUPERSET_ROWS,
  SAMPLE_DATASET as SAMPLE_SUPERSET_DATASET,
  SAMPLE_CHARTS as SAMPLE_SUPERSET_CHARTS,
} from './sample-data.js';
export type { SupersetSampleDashboard, SupersetSampleChart } from './sample-data.js';
