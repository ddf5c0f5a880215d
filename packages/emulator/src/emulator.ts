import { Hono } from 'hono';
import { EmulatorErrorCode, type EmulatorStats, type FaultOperation, type FaultSettings } from '@embedded-dashboard/protocol';
import { adminRoutes } from './admin/admin-routes.js';
import { customerApiRoutes } from './api/customer-routes.js';
import { userApiRoutes } from './api/user-routes.js';
import { dashboardHostRoutes, SAMPLE_DASHBOARDS, type DashboardGroupView, type EmbedTokenView } from './dashboard-host/index.js';
import { EmbedKeyring } from './embed/embed-secrets.js';
import { EmbedTokenRegistry } from './embed/embed-token-registry.js';
import { parseFaultSettings } from './faults/settings.js';
import type { EmulatorEnv } from './http/body.js';
import { errorResponse, toErrorResponse } from './http/errors.js';
import { resolveOptions, type EmulatorOptions } from './options.js';
import { apiKeyRateLimit } from './rate-limit/api-key-rate-limit.js';
import { DataFileWriter, loadDataFile, removeLeftoverTempFiles } from './store/data-file.js';
import { GroupStore } from './store/group-store.js';
import type { StoredGroup } from './store/snapshot.js';

/** A running emulator: its Hono app plus in-process controls (the admin routes call these too). */
export interface Emulator {
  /** `/api/user`, the Customer API, the dashboard host, and with `admin` the `/__emulator/*` routes. */
  app: Hono<EmulatorEnv>;
  /** Replaces the fault settings (`{}` clears them). Throws a `TypeError` for bad settings. */
  setFaults(settings: FaultSettings): void;
  stats(): EmulatorStats;
  /** Forgets every group, token and fault and zeroes the counters. */
  reset(): void;
  /**
   * Makes a user group token, or an embed token a dashboard has been shown with, stop working
   * now; `false` if the emulator never issued (or never accepted) it.
   */
  expireToken(token: string): boolean;
  /**
   * The group a user group token identifies now (TTL, rotation, grace and expiry honoured), or
   * that an embed token names which a dashboard has been shown with and which has not expired.
   */
  resolveToken(token: string): DashboardGroupView | undefined;
  /** Waits for pending data file writes. The app stays usable; there is nothing else to free. */
  close(): Promise<void>;
}

/**
 * Creates the emulator. Synchronous: a `dataFile` is read at once, and a corrupt one throws
 * `DataFileError` instead of being overwritten. Bad options throw a `TypeError` naming them.
 *
 * @example
 * ```ts
 * const { app } = createEmulator({ admin: true });
 * // A GET cannot carry a body in-process, so pass it through the env:
 * const res = await app.request('/api/user', {
 *   method: 'GET',
 *   headers: { Authorization: 'Token dev-customer-key', 'Content-Type': 'application/json' },
 * }, { rawBody: JSON.stringify({ name: 'Acme', user_group_id: 'acme', mapping: {}, properties: { region: 'EU' } }) });
 * ```
 */
export function createEmulator(options: EmulatorOptions = {}): Emulator {
  const config = resolveOptions(options);
  if (config.dataFile !== undefined) removeLeftoverTempFiles(config.dataFile);
  const store = new GroupStore(
    { now: config.now, tokenTtlMs: config.tokenTtlMs, rotationGraceMs: config.rotationGraceMs },
    config.dataFile === undefined ? undefined : loadDataFile(config.dataFile),
  );
  const writer = config.dataFile === undefined ? undefined : new DataFileWriter(config.dataFile, () => store.snapshot());
  const persist = () => writer?.write() ?? Promise.resolve();
  const durable = () => writer?.durable() ?? Promise.resolve();
  // Sync callers cannot wait; a failed write is retried by the next one, which writes everything.
  const persistLater = () => void persist().catch(() => undefined);

  let faults = config.faults;
  const counters: Record<FaultOperation, number> = { getOrCreate: 0, update: 0, rotate: 0, generateJwt: 0 };
  const rejected = { rateLimited: 0 };
  const rateLimit = apiKeyRateLimit(config.rateLimitPerMinute, config.now, config.rateLimitBurst);

  const setFaults = (settings: FaultSettings) => {
    faults = parseFaultSettings(settings);
  };
  const stats = (): EmulatorStats => ({ requests: { ...counters }, rejected: { ...rejected }, groups: store.size });
  const resetState = () => {
    store.reset();
    faults = {};
    counters.getOrCreate = counters.update = counters.rotate = counters.generateJwt = 0;
    rejected.rateLimited = 0;
    rateLimit.reset();
    embedTokens.reset();
  };
  const embedTokens = new EmbedTokenRegistry(new EmbedKeyring(config.embedSecrets), config.now);
  const view = (group: StoredGroup | undefined): DashboardGroupView | undefined =>
    group && { name: group.name, providedId: group.providedId, properties: group.properties ?? {}, environment: group.environment };
  const resolveToken = (token: string): DashboardGroupView | undefined => {
    if (typeof token !== 'string') return undefined;
    const embedded = embedTokens.known(token);
    return view(embedded ? store.find(embedded.secret.environment, embedded.claims.cst) : store.resolveToken(token));
  };
  const expireToken = (token: string) => store.expireToken(token) || embedTokens.revoke(token);
  /** What a dashboard frame may do with an embed token: its claims checked, its customer one of this account's. */
  const resolveEmbedToken = async (jwt: string): Promise<EmbedTokenView> => {
    const checked = await embedTokens.check(jwt);
    if (!checked.ok)
      return checked.expired
        ? {
            status: 'expired',
            dashboardId: checked.claims.dsh,
            issuer: checked.claims.iss,
            ...(checked.claims.cht !== undefined && { chartId: checked.claims.cht }),
          }
        : { status: 'refused', message: checked.message };
    const group = view(store.find(checked.secret.environment, checked.claims.cst));
    if (!group) return { status: 'refused', message: 'its cst names no customer of this account' };
    const { dsh, iss, exp, cht } = checked.claims;
    return { status: 'ok', dashboardId: dsh, issuer: iss, group, expiresInMs: exp * 1000 - config.now(), ...(cht !== undefined && { chartId: cht }) };
  };

  const app = new Hono<EmulatorEnv>();
  app.use('*', async function noSniffJson(c, next) {
    await next();
    // A JSON answer is never to be sniffed into HTML or script (the dashboard pages set their own).
    if (c.res.headers.get('content-type')?.startsWith('application/json')) c.res.headers.set('X-Content-Type-Options', 'nosniff');
  });
  app.onError((error) => toErrorResponse(error));
  app.notFound((c) => errorResponse(EmulatorErrorCode.notFound, `no route for ${c.req.method.slice(0, 16)} ${c.req.path.slice(0, 200)}`));
  const apiDependencies = {
    store,
    apiKeys: config.apiKeys,
    maxBodyBytes: config.maxBodyBytes,
    persist,
    durable,
    faults: () => faults,
    random: Math.random,
    counters,
    rateLimit,
    rejected,
  };
  app.route('/', userApiRoutes(apiDependencies));
  app.route('/', customerApiRoutes({ ...apiDependencies, embed: { keyring: embedTokens.keyring, dashboards: new Set(SAMPLE_DASHBOARDS), now: config.now } }));
  if (config.admin) {
    app.route(
      '/',
      adminRoutes({
        maxBodyBytes: config.maxBodyBytes,
        async reset() {
          resetState();
          await persist();
        },
        async expireToken(token) {
          const expired = expireToken(token);
          if (expired) await persist();
          return expired;
        },
        setFaults,
        stats,
      }),
    );
  }
  app.route('/', dashboardHostRoutes({ embedOrigins: config.embedOrigins, resolveToken, resolveEmbedToken, dataRefreshMs: config.dashboardRefreshMs }));

  return {
    app,
    setFaults,
    stats,
    reset() {
      resetState();
      persistLater();
    },
    expireToken(token) {
      const expired = expireToken(token);
      if (expired) persistLater();
      return expired;
    },
    resolveToken,
    async close() {
      await writer?.flush();
    },
  };
}
