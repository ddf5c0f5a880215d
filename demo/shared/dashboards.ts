/** The emulator's sample dashboards, in picker order, with their charts (what `?chart=` may name: a single-chart embed). */
export const DEMO_DASHBOARDS = [
  {
    id: 'sales-overview',
    title: 'Sales overview',
    charts: [
      { id: 'revenue-by-month', title: 'Revenue by month' },
      { id: 'orders-by-month', title: 'Orders by month' },
    ],
  },
  {
    id: 'support-metrics',
    title: 'Support metrics',
    charts: [
      { id: 'tickets-by-status', title: 'Tickets by status' },
      { id: 'median-first-response', title: 'Median first response' },
    ],
  },
] as const;
