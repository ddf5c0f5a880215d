import { readFileSync } from 'node:fs';
import { afterAll, expect, it } from 'vitest';
import { createBffApp, createBffMetrics } from '@embedded-dashboard/bff';
import { API_TOKEN, FakeUpstream, SESSION_SECRET } from '../packages/bff/test/support/fixtures.js';
import { socketBffs } from '../packages/bff/test/support/socket-bffs.js';

/*
 * examples/grafana/embedded-dashboard.json: a Grafana dashboard model (the fields Grafana's
 * import reads, every panel's datasource the dashboard's Prometheus variable), whose every query
 * names a metric the BFF really exports, read from its GET /metrics over HTTP.
 */

interface Target {
  refId?: unknown;
  expr?: unknown;
  datasource?: unknown;
}
interface Panel {
  id?: unknown;
  type?: unknown;
  title?: unknown;
  gridPos?: Record<string, unknown>;
  datasource?: unknown;
  targets?: Target[];
}
interface Variable {
  name?: unknown;
  type?: unknown;
  query?: unknown;
  datasource?: unknown;
}

const model = JSON.parse(readFileSync(new URL('../examples/grafana/embedded-dashboard.json', import.meta.url), 'utf8')) as Record<string, unknown>;
const servers = socketBffs();
afterAll(() => servers.closeAll());

/** The metric names in the BFF's Prometheus text: each `# TYPE` line, a histogram with its series' suffixes. */
async function exportedNames(): Promise<Set<string>> {
  const app = createBffApp({
    upstream: new FakeUpstream(),
    session: { secret: SESSION_SECRET },
    secrets: [API_TOKEN],
    metrics: createBffMetrics(),
    exposeMetrics: true,
    logLevel: 'silent',
  });
  const url = await servers.serve(app);
  const response = await fetch(`${url}/metrics`);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
  const names = new Set<string>();
  for (const [, name, type] of (await response.text()).matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    names.add(name!);
    if (type === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(name! + suffix);
  }
  return names;
}

it('is a Grafana dashboard model: title, uid, schema version, a Prometheus datasource variable, panels with a place and queries', () => {
  expect(model).toMatchObject({ title: expect.any(String), uid: expect.stringMatching(/^[A-Za-z0-9_-]{1,40}$/), editable: true });
  expect(model.schemaVersion).toBeGreaterThanOrEqual(36);
  const variables = (model.templating as { list: Variable[] }).list;
  expect(variables.find((v) => v.name === 'datasource')).toMatchObject({ type: 'datasource', query: 'prometheus' });
  const panels = model.panels as Panel[];
  expect(panels.length).toBeGreaterThan(10);
  const ids = panels.map((p) => p.id);
  expect(new Set(ids).size).toBe(ids.length);
  for (const panel of panels) {
    expect(panel.title, JSON.stringify(panel)).toEqual(expect.any(String));
    expect(['row', 'timeseries', 'stat']).toContain(panel.type);
    const { x, y, w, h } = panel.gridPos ?? {};
    for (const n of [x, y, w, h]) expect(Number.isInteger(n)).toBe(true);
    expect((x as number) + (w as number)).toBeLessThanOrEqual(24);
    if (panel.type === 'row') continue;
    expect(panel.datasource).toEqual({ type: 'prometheus', uid: '${datasource}' });
    expect(panel.targets!.length).toBeGreaterThan(0);
    for (const target of panel.targets!) {
      expect(target).toMatchObject({ refId: expect.stringMatching(/^[A-Z]$/), expr: expect.any(String), datasource: panel.datasource });
      // Balanced brackets: a query Prometheus can parse at least that far.
      const expr = target.expr as string;
      for (const [open, close] of ['()', '{}', '[]']) expect(expr.split(open!).length, expr).toBe(expr.split(close!).length);
    }
  }
  // Panels do not overlap (the grid is what Grafana lays out).
  const cells = new Set<string>();
  for (const { gridPos } of panels) {
    const { x, y, w, h } = gridPos as Record<string, number>;
    for (let i = x!; i < x! + w!; i++) {
      for (let j = y!; j < y! + h!; j++) {
        expect(cells.has(`${i},${j}`)).toBe(false);
        cells.add(`${i},${j}`);
      }
    }
  }
});

it('queries only metrics the BFF exports, the timings and the vendor calls, budget, breaker and store among them', async () => {
  const exported = await exportedNames();
  const queries = [
    ...(model.panels as Panel[]).flatMap((p) => p.targets ?? []).map((t) => t.expr as string),
    ...(model.templating as { list: Variable[] }).list.map((v) => JSON.stringify(v.query)),
  ];
  const used = new Set(queries.flatMap((expr) => [...expr.matchAll(/\bembed_bff_[a-z_]+/g)].map((m) => m[0])));
  expect([...used].filter((name) => !exported.has(name))).toEqual([]);
  for (const name of [
    'embed_bff_dashboard_load_seconds_bucket',
    'embed_bff_dashboard_token_seconds_bucket',
    'embed_bff_dashboard_frame_ready_seconds_bucket',
    'embed_bff_upstream_calls_total',
    'embed_bff_budget_used_total',
    'embed_bff_upstream_circuit_open',
    'embed_bff_store_degraded',
  ]) {
    expect(used).toContain(name);
  }
});
