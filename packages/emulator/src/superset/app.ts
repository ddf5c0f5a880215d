import { Hono, type Context } from 'hono';
import { readAtMost, SUPERSET_CSRF_HEADER, SUPERSET_GUEST_TOKEN_HEADER, SUPERSET_ROUTES } from '@embedded-dashboard/protocol';
import { drawFault, parseFaultSettings, type FaultKind } from '../faults/settings.js';
import type { EmulatorEnv } from '../http/body.js';
import {
  resolveSupersetOptions,
  SUPERSET_FAULT_OPERATIONS,
  type SupersetEmulatorOptions,
  type SupersetFaultOperation,
  type SupersetFaultSettings,
} from './options.js';
import { embeddedPage, pageNonce } from './page.js';
import { SAMPLE_CHARTS, SAMPLE_DATASET, SAMPLE_METRICS, SAMPLE_ROWS, type SupersetSampleDashboard } from './sample-data.js';
import { parseClause, SqlClauseError, type Row } from './sql-clause.js';
import { checkCsrf, issueCsrf, signGuestToken, signUserToken, verifyGuestToken, verifyUserToken, type GuestClaims } from './tokens.js';
import { validateGuestTokenBody } from './validate.js';

/** A running Superset mode: its Hono app and in-process controls (the admin routes call these too). */
export interface SupersetEmulator {
  app: Hono<EmulatorEnv>;
  /** Replaces the fault settings (`{}` clears them); a bad one throws a `TypeError`. */
  setFaults(settings: SupersetFaultSettings): void;
  /** Requests each operation answered (faults included), since the start. */
  stats(): { requests: Record<SupersetFaultOperation, number> };
  /** The guest token's HS256 secret and audience as configured (for a BFF that signs guest tokens itself). */
  readonly guestToken: { audience: string; lifetimeSeconds: number };
  readonly dashboards: readonly SupersetSampleDashboard[];
}

const JSON_HEADERS = { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' };
const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { ...JSON_HEADERS, ...headers } });
/** Superset's generic error envelope (superset/views/error_handling.py). */
const supersetErrors = (status: number, message: string, errorType: string, level = 'error') =>
  json({ errors: [{ message, error_type: errorType, level, extra: {} }] }, status);
const BAD_REQUEST = '400 Bad Request: The browser (or proxy) sent a request that this server could not understand.';

type Body = { ok: true; value: unknown } | { ok: false; response: Response };

/** The body as Flask's `request.json` sees it: JSON by content type, else 400 as Flask-AppBuilder answers. */
async function readJson(c: Context<EmulatorEnv>, limit: number, notJsonMessage: string): Promise<Body> {
  const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json') return { ok: false, response: json({ message: notJsonMessage }, 400) };
  const stream = c.req.raw.body;
  const bytes = stream ? await readAtMost(stream, limit).catch(() => null) : new Uint8Array();
  if (bytes === undefined) return { ok: false, response: json({ message: '413 Request Entity Too Large' }, 413, { Connection: 'close' }) };
  if (bytes === null) return { ok: false, response: json({ message: BAD_REQUEST }, 400) };
  try {
    return { ok: true, value: JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes)) };
  } catch {
    return { ok: false, response: json({ message: BAD_REQUEST }, 400) };
  }
}

/** Flask-WTF's `same_origin`: scheme, host (case-insensitive) and port as written (none is not 80). */
function sameOrigin(referrer: string | undefined, domain: string): boolean {
  if (!referrer) return false;
  const parse = (text: string) => {
    const match = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#@]*@)?(\[[^\]]*\]|[^/?#:]*)(?::(\d*))?/.exec(text);
    return match ? { scheme: match[1]!.toLowerCase(), host: match[3]!.toLowerCase(), port: match[4] ? Number(match[4]) : undefined } : undefined;
  };
  const a = parse(referrer);
  const b = parse(domain);
  return !!a && !!b && a.scheme === b.scheme && a.host === b.host && a.port === b.port;
}

/** Python's `uuid.UUID(text)` as far as `/embedded/<uuid>` needs it: hex with or without hyphens, any case. */
function normalizeUuid(text: string): string | undefined {
  const hex = text
    .replace(/^urn:uuid:/i, '')
    .replace(/^\{|\}$/g, '')
    .replace(/-/g, '')
    .toLowerCase();
  if (!/^[0-9a-f]{32}$/.test(hex)) return undefined;
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * Creates the emulator's Superset mode: the routes of Superset 6.1.0 the toolkit uses (login,
 * refresh, CSRF token with its session cookie, guest token with its validation, the chart data a
 * guest token opens with its RLS rules applied to the sample rows, `/api/v1/me/roles/`, and the
 * embeddable page `/embedded/<uuid>` with its Referer check), with fault injection per operation.
 * Answers (statuses and bodies) are the real server's, checked by test/superset/conformance.test.ts
 * against both.
 */
export function createSupersetEmulator(options: SupersetEmulatorOptions = {}): SupersetEmulator {
  const config = resolveSupersetOptions(options);
  let faults = config.faults;
  const requests = Object.fromEntries(SUPERSET_FAULT_OPERATIONS.map((op) => [op, 0])) as Record<SupersetFaultOperation, number>;
  const usersById = new Map([...config.users].map(([username, user]) => [user.id, { username, ...user }]));
  const byUuid = new Map(config.dashboards.map((dashboard) => [dashboard.uuid, dashboard]));
  const columns = new Set<string>(SAMPLE_DATASET.columns);

  const app = new Hono<EmulatorEnv>();
  app.onError(() => json({ message: 'Fatal error' }, 500));
  app.notFound(() =>
    json(
      {
        errors: [{ message: '404 Not Found: The requested URL was not found on the server.', error_type: 'GENERIC_BACKEND_ERROR', level: 'error', extra: {} }],
      },
      404,
    ),
  );

  /** Counts the request, then applies the drawn fault: latency first, then the fault's answer, if any. */
  const withFaults =
    (operation: SupersetFaultOperation, wrongAnswer: () => unknown, handler: (c: Context<EmulatorEnv>) => Promise<Response>) =>
    async (c: Context<EmulatorEnv>): Promise<Response> => {
      requests[operation]++;
      const settings = faults;
      if (settings.latencyMs && (!settings.operations || settings.operations.includes(operation))) {
        await new Promise((resolve) => setTimeout(resolve, settings.latencyMs));
      }
      const kind: FaultKind | undefined = drawFault(settings, operation, Math.random);
      if (kind === 'serverError') return json({ message: 'injected fault: service unavailable' }, 503);
      if (kind === 'rateLimit')
        return json({ message: '429 Too Many Requests: injected fault' }, 429, { 'Retry-After': String(settings.retryAfterSeconds ?? 1) });
      if (kind === 'failure') return json(wrongAnswer());
      if (kind === 'malformed') return new Response('{"result":', { status: 200, headers: JSON_HEADERS });
      if (kind === 'drop') {
        const socket = c.env?.incoming?.socket;
        if (!socket) return Response.error();
        socket.destroy();
        return new Response(null, { status: 204 });
      }
      return handler(c);
    };

  app.post(
    SUPERSET_ROUTES.login,
    withFaults(
      'login',
      () => ({ access: 'token' }),
      async (c) => {
        const body = await readJson(c, config.maxBodyBytes, 'Request payload is not JSON');
        if (!body.ok) return body.response;
        const problems = validateLogin(body.value);
        if (problems) return json({ message: problems }, 400);
        const { username, password, refresh } = body.value as { username: string; password: string; refresh?: boolean };
        const user = config.users.get(username);
        if (!user || user.password !== password) return json({ message: 'Not authorized' }, 401);
        const now = config.now();
        const answer: Record<string, string> = { access_token: await signUserToken(config.secretKey, user.id, 'access', true, now, config.accessTokenSeconds) };
        if (refresh) answer.refresh_token = await signUserToken(config.secretKey, user.id, 'refresh', false, now, 30 * 86_400);
        return json(answer);
      },
    ),
  );

  app.post(
    SUPERSET_ROUTES.refresh,
    withFaults(
      'refresh',
      () => ({}),
      async (c) => {
        const checked = await verifyUserToken(config.secretKey, c.req.header('authorization'), 'refresh', config.now());
        if (!checked.ok) return json({ msg: checked.msg }, checked.status);
        return json({ access_token: await signUserToken(config.secretKey, checked.userId, 'access', false, config.now(), config.accessTokenSeconds) });
      },
    ),
  );

  const csrfRoute = withFaults(
    'csrfToken',
    () => ({ result: null }),
    async (c) => {
      const checked = await verifyUserToken(config.secretKey, c.req.header('authorization'), 'access', config.now());
      if (!checked.ok) return json({ msg: checked.msg }, checked.status);
      const { cookie, token } = await issueCsrf(config.secretKey, config.now());
      return json({ result: token }, 200, { 'Set-Cookie': `session=${cookie}; HttpOnly; Path=/; SameSite=Lax` });
    },
  );
  // Flask routes the path with and without its trailing slash alike.
  app.get(SUPERSET_ROUTES.csrfToken, csrfRoute);
  app.get(SUPERSET_ROUTES.csrfToken.slice(0, -1), csrfRoute);

  const findDashboard = (idOrSlugOrUuid: string): SupersetSampleDashboard | undefined =>
    config.dashboards.find((d) => String(d.id) === idOrSlugOrUuid || d.slug === idOrSlugOrUuid) ?? byUuid.get(normalizeUuid(idOrSlugOrUuid) ?? '');

  app.post(
    SUPERSET_ROUTES.guestToken,
    withFaults(
      'guestToken',
      () => ({ result: 'no token here' }),
      async (c) => {
        // Flask-WTF's CSRFProtect runs before the view, and so before the bearer token is read.
        const cookie = /(?:^|;\s*)session=([^;]*)/.exec(c.req.header('cookie') ?? '')?.[1];
        const csrfProblem = await checkCsrf(config.secretKey, c.req.header(SUPERSET_CSRF_HEADER), cookie);
        if (csrfProblem) return supersetErrors(400, `400 Bad Request: ${csrfProblem}`, 'GENERIC_BACKEND_ERROR');
        const checked = await verifyUserToken(config.secretKey, c.req.header('authorization'), 'access', config.now());
        if (!checked.ok) return json({ msg: checked.msg }, checked.status);
        if (!usersById.get(checked.userId)?.grantGuestToken) return json({ message: 'Forbidden' }, 403);
        const body = await readJson(c, config.maxBodyBytes, BAD_REQUEST);
        if (!body.ok) return body.response;
        const validated = validateGuestTokenBody(body.value);
        if (!validated.ok) return validated.status === 500 ? json({ message: 'Fatal error' }, 500) : json({ message: validated.errors }, 400);
        const { user, resources, rls } = validated.value;
        if (resources.some((resource) => !findDashboard(resource.id))) return json({ message: 'EmbeddedDashboard not found.' }, 400);
        const iat = config.now() / 1000;
        const claims: GuestClaims = {
          user,
          resources,
          rls_rules: rls,
          iat,
          exp: iat + config.guestTokenSeconds,
          aud: config.guestTokenAudience,
          type: 'guest',
        };
        return json({ token: await signGuestToken(config.guestTokenSecret, claims) });
      },
    ),
  );

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

  app.get(
    '/embedded/:uuid',
    withFaults(
      'embeddedPage',
      () => ({}),
      async (c) => {
        const uuid = normalizeUuid(c.req.param('uuid') ?? '');
        const dashboard = uuid === undefined ? undefined : byUuid.get(uuid);
        if (!dashboard)
          return new Response('<!doctype html><title>404 Not Found</title><h1>Not Found</h1>', {
            status: 404,
            headers: { 'Content-Type': 'text/html; charset=utf-8' },
          });
        const referrer = c.req.header('referer');
        if (dashboard.allowedDomains.length > 0 && !dashboard.allowedDomains.some((domain) => sameOrigin(referrer, domain))) {
          return new Response('<!doctype html><title>403 Forbidden</title><h1>Forbidden</h1>', {
            status: 403,
            headers: { 'Content-Type': 'text/html; charset=utf-8' },
          });
        }
        const nonce = pageNonce();
        const charts = SAMPLE_CHARTS.filter((chart) => dashboard.chartIds.includes(chart.id));
        return new Response(embeddedPage({ dashboard, charts, datasetId: SAMPLE_DATASET.id, nonce }), {
          status: 200,
          headers: {
            'Content-Type': 'text/html; charset=utf-8',
            'Cache-Control': 'no-store',
            'Content-Security-Policy': `default-src 'self'; base-uri 'self'; object-src 'none'; img-src 'self' data:; style-src 'self' 'nonce-${nonce}'; script-src 'nonce-${nonce}'; connect-src 'self'; frame-ancestors ${config.frameAncestors.join(' ')}`,
            'X-Content-Type-Options': 'nosniff',
            'Referrer-Policy': 'strict-origin-when-cross-origin',
          },
        });
      },
    ),
  );

  if (config.admin) {
    app.put('/__emulator/faults', async (c) => {
      const body = await readJson(c, config.maxBodyBytes, 'fault settings must be JSON');
      if (!body.ok) return body.response;
      try {
        faults = parseFaultSettings(body.value, SUPERSET_FAULT_OPERATIONS);
      } catch (error) {
        return json({ message: (error as Error).message }, 400);
      }
      return json({ faults });
    });
    app.get('/__emulator/stats', () => json({ requests }));
  }

  return {
    app,
    setFaults(settings) {
      faults = parseFaultSettings(settings, SUPERSET_FAULT_OPERATIONS);
    },
    stats: () => ({ requests: { ...requests } }),
    guestToken: { audience: config.guestTokenAudience, lifetimeSeconds: config.guestTokenSeconds },
    dashboards: config.dashboards,
  };
}

/** Flask-AppBuilder's login schema (marshmallow): the same messages for the same mistakes. */
function validateLogin(value: unknown): Record<string, string[]> | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { _schema: ['Invalid input type.'] };
  const body = value as Record<string, unknown>;
  const problems: Record<string, string[]> = {};
  for (const field of ['username', 'password', 'provider'] as const) {
    if (!(field in body)) problems[field] = ['Missing data for required field.'];
    else if (body[field] === null) problems[field] = ['Field may not be null.'];
    else if (typeof body[field] !== 'string') problems[field] = ['Not a valid string.'];
  }
  if (typeof body.provider === 'string' && body.provider !== 'db') {
    problems.provider =
      body.provider === 'ldap'
        ? ['Alternative authentication provider is not allowed']
        : ['Must be one of: db, ldap.', 'Alternative authentication provider is not allowed'];
  }
  if ('refresh' in body && typeof body.refresh !== 'boolean') problems.refresh = ['Not a valid boolean.'];
  return Object.keys(problems).length > 0 ? problems : undefined;
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
