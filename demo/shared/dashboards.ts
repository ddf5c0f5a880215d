/** The emulator's sample dashboards, in picker order. */
export const DEMO_DASHBOARDS = [
  { id: 'sales-overview', title: 'Sales overview' },
  { id: 'support-metrics', title: 'Support metrics' },
] as const;
