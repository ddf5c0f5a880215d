import { describe, expect, it } from 'vitest';
import { buildDashboardData, dashboardLayout, singleChart } from './build-data.js';
import { SAMPLE_DASHBOARDS } from './sample-dashboards.js';

const group = { name: 'Acme Corp', providedId: 'acme', environment: 'Customer' as const, properties: { region: 'EU' } };

describe('dashboardLayout', () => {
  it.each(SAMPLE_DASHBOARDS)("%s: the sections, labels and chart sizes of every group's data, with nobody's name, values or rows", (id) => {
    const layout = dashboardLayout(id)!;
    const data = buildDashboardData(id, group)!;
    expect(layout.title).toBe(data.title);
    expect(layout.jsEventButton).toEqual(data.jsEventButton);
    expect(layout.kpis.map((k) => k.label)).toEqual(data.kpis.map((k) => k.label));
    expect(layout.charts.map((c) => [c.id, c.kind, c.title, c.unit, c.points.map((p) => p.label)])).toEqual(
      data.charts.map((c) => [c.id, c.kind, c.title, c.unit, c.points.map((p) => p.label)]),
    );
    expect(layout.details).toEqual({ ...data.details, rows: [] });
    expect(JSON.stringify(layout)).not.toMatch(/Acme|acme|\$/);
    expect(layout.kpis.every((k) => k.value === '—' && k.trend === 0)).toBe(true);
    expect(layout.charts.flatMap((c) => c.points).every((p) => p.value === 0)).toBe(true);
    expect(layout.variables).toEqual({});
  });

  it('knows no other dashboard', () => {
    expect(dashboardLayout('nope')).toBeUndefined();
    expect(dashboardLayout('__proto__')).toBeUndefined();
  });

  it('singleChart keeps that chart alone (no KPIs), and none for a chart the dashboard lacks', () => {
    const layout = dashboardLayout('support-metrics')!;
    expect(singleChart(layout, 'tickets-by-status')).toMatchObject({ chart: 'tickets-by-status', kpis: [], charts: [{ id: 'tickets-by-status' }] });
    expect(singleChart(layout, 'revenue-by-month').charts).toEqual([]);
  });

  it("singleChart of a group's data keeps none of its other values: no other chart's points, no KPI, no variable, no detail row", () => {
    const data = buildDashboardData('sales-overview', group)!;
    expect(data.details.rows.length).toBeGreaterThan(0);
    expect(data.variables).toEqual({ region: 'EU' });
    const chart = singleChart(data, 'orders-by-month');
    expect(chart).toMatchObject({ kpis: [], details: { ...data.details, rows: [] } });
    expect(chart.variables).toEqual({});
    expect(chart.charts).toEqual(data.charts.filter((c) => c.id === 'orders-by-month'));
  });
});
