/**
 * The Superset mode's guest-token routes for data: `/api/v1/me/roles/` and `/api/v1/chart/data`
 * with the guest's RLS rules and the native filter applied to the sample rows.
 */
import type { Context, Hono } from 'hono';
import { SUPERSET_GUEST_TOKEN_HEADER } from '@embedded-dashboard/protocol';
import type { EmulatorEnv } from '../http/body.js';
import { BAD_REQUEST, json, readJson, supersetErrors, type SupersetRouteContext } from './http.js';
import { SAMPLE_CHARTS, SAMPLE_DATASET, SAMPLE_METRICS, SAMPLE_ROWS, type SupersetSampleDashboard } from './sample-data.js';
import { parseClause, SqlClauseError, type Row } from './sql-clause.js';
import { verifyGuestToken, type GuestClaims } from './tokens.js';

export function registerChartDataRoutes(app: Hono<EmulatorEnv>, { config, withFaults }: SupersetRouteContext): void {
  const columns = new Set<string>(SAMPLE_DATASET.columns);
  const guestOf = (c: Context<EmulatorEnv>) =>
    verifyGuestToken(config.guestTokenSecret, config.guestTokenAudience, c.req.header(SUPERSET_GUEST_TOKEN_HEADER), config.now());
  const guestSees = (guest: GuestClaims, dashboard: SupersetSampleDashboard) =>
    guest.resources.some(
      (resource) => resource.type === 'dashboard' && (String(resource.id) === String(dashboard.id) || String(resource.id) === dashboard.uuid),
    );
  const noUser = () => json({ msg: 'Missing Authorization Header' }, 401);
  const datasourceDenied = () =>
    supersetErrors(
      403,
      `This endpoint requires the datasource ${SAMPLE_DATASET.id}, database or \`all_datasource_access\` permission`,
      'DATASOURCE_SECURITY_ACCESS_ERROR',
      'warning',
    );

  app.get('/api/v1/me/roles/', async (c) => {
    const guest = await guestOf(c);
    if (!guest) return noUser();
    return json({
      result: {
        firstName: guest.user.first_name ?? 'Guest',
        lastName: guest.user.last_name ?? 'User',
        username: guest.user.username ?? 'guest_user',
        isActive: true,
        isAnonymous: false,
        permissions: {},
        roles: { EmbedGuest: [['can_read', 'Dashboard']] },
      },
    });
  });

  app.post(
    '/api/v1/chart/data',
    withFaults(
      'chartData',
      () => ({ result: [] }),
      async (c) => {
        const guest = await guestOf(c);
        if (!guest) return noUser();
        const body = await readJson(c, config.maxBodyBytes, BAD_REQUEST);
        if (!body.ok) return body.response;
        const request = body.value as {
          datasource?: { id?: unknown };
          form_data?: { slice_id?: unknown; dashboardId?: unknown };
          queries?: { columns?: unknown; metrics?: unknown; filters?: unknown }[];
        } | null;
        const query = Array.isArray(request?.queries) ? request.queries[0] : undefined;
        if (!request || typeof request !== 'object' || request.datasource?.id !== SAMPLE_DATASET.id || !query || typeof query !== 'object') {
          return json({ message: 'Request is incorrect: datasource and queries are required' }, 400);
        }
        const wanted: unknown[] = Array.isArray(query.columns) ? query.columns : [];
        const metrics: unknown[] = Array.isArray(query.metrics) ? query.metrics : [];
        const unknown = wanted.filter((column) => typeof column !== 'string' || !columns.has(column));
        if (unknown.length > 0)
          return json({ message: `Error: Columns missing in dataset: [${unknown.map((u) => `'${String(u).slice(0, 64)}'`).join(', ')}]` }, 400);
        const chart = SAMPLE_CHARTS.find((candidate) => candidate.id === request.form_data?.slice_id);
        const dashboard = config.dashboards.find((candidate) => candidate.id === request.form_data?.dashboardId);
        if (!chart || !dashboard || !dashboard.chartIds.includes(chart.id) || !guestSees(guest, dashboard)) return datasourceDenied();
        // Superset 6.1.0 answers a guest's query for other columns or metrics of the dataset than the
        // chart's (its payload check, `query_context_modified`, sees no saved chart on this path): the
        // row-level security below is the only boundary, here as there (conformance.test.ts).
        const unknownMetric = metrics.find((metric) => typeof metric !== 'string' || !(metric in SAMPLE_METRICS));
        if (unknownMetric !== undefined) return json({ message: `Error: Metric '${JSON.stringify(unknownMetric).slice(0, 64)}' does not exist` }, 400);
        let rows: readonly Row[] = SAMPLE_ROWS;
        try {
          for (const rule of guest.rls_rules) {
            if (rule.dataset !== undefined && rule.dataset !== null && Number(rule.dataset) !== SAMPLE_DATASET.id) continue;
            const clause = parseClause(rule.clause, columns);
            rows = rows.filter((row) => clause.matches(row));
          }
        } catch (error) {
          if (error instanceof SqlClauseError) return supersetErrors(422, `Error parsing the row level security clause: ${error.message}`, 'INVALID_SQL_ERROR');
          throw error;
        }
        rows = applyFilters(rows, query.filters);
        const data =
          metrics.length === 0
            ? rows.map((row) => Object.fromEntries(wanted.map((column) => [column as string, row[column as string] ?? null])))
            : [...groupBy(rows, (row) => JSON.stringify(wanted.map((column) => row[column as string]))).values()].map((group) => ({
                ...Object.fromEntries(wanted.map((column) => [column as string, group[0]![column as string] ?? null])),
                ...Object.fromEntries(metrics.map((metric) => [metric as string, SAMPLE_METRICS[metric as string]!(group)])),
              }));
        const colnames = [...(wanted as string[]), ...(metrics as string[])];
        return json({
          result: [
            {
              status: 'success',
              error: null,
              is_cached: false,
              colnames,
              rowcount: data.length,
              data,
              result_format: 'json',
              applied_filters: [],
              rejected_filters: [],
            },
          ],
        });
      },
    ),
  );
}

/** The chart-data `filters` the page's native filter sends: `IN`, `NOT IN`, `==`, `!=` on a column. */
function applyFilters(rows: readonly Row[], filters: unknown): readonly Row[] {
  if (!Array.isArray(filters)) return rows;
  let kept = rows;
  for (const filter of filters as { col?: unknown; op?: unknown; val?: unknown }[]) {
    if (typeof filter !== 'object' || filter === null || typeof filter.col !== 'string') continue;
    const col = filter.col;
    const values = Array.isArray(filter.val) ? filter.val : [filter.val];
    if (filter.op === 'IN' || filter.op === '==') kept = kept.filter((row) => values.includes(row[col]));
    else if (filter.op === 'NOT IN' || filter.op === '!=') kept = kept.filter((row) => !values.includes(row[col]));
  }
  return kept;
}

function groupBy(rows: readonly Row[], key: (row: Row) => string): Map<string, Row[]> {
  const groups = new Map<string, Row[]>();
  for (const row of rows) {
    const k = key(row);
    const group = groups.get(k);
    if (group) group.push(row);
    else groups.set(k, [row]);
  }
  return groups;
}
