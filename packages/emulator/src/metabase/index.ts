/** The emulator's Metabase mode (ARCHITECTURE §7.2): guest embeds, their frame page and embed API, faults. */
export { createMetabaseEmulator, type MetabaseEmulator } from './app.js';
export {
  DEFAULT_METABASE_SECRET,
  DEFAULT_METABASE_FRAME_ANCESTORS,
  METABASE_FAULT_OPERATIONS,
  type MetabaseEmulatorOptions,
  type MetabaseFaultOperation,
  type MetabaseFaultSettings,
} from './options.js';
export { METABASE_SAMPLE_ITEMS, METABASE_SAMPLE_ROWS, METABASE_FILTER_COLUMNS } from './sample-data.js';
export type { MetabaseSampleItem, MetabaseSampleCard, MetabaseSampleRow, MetabaseFilterColumn } from './sample-data.js';
