import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createAdaptorServer } from '@hono/node-server';
import {
  startEmulator,
  startMetabaseEmulator,
  startSupersetEmulator,
  SAMPLE_SUPERSET_DASHBOARDS,
  DEFAULT_SUPERSET_AUDIENCE,
  type Emulator,
} from '@embedded-dashboard/emulator';
import type { BffMetrics } from '@embedded-dashboard/bff';
import { DEFAULT_BFF_BASE_PATH } from '@embedded-dashboard/protocol';
import type { DemoTimings } from '../shared/api.js';
import type { DemoControls } from './controls.js';
import { DEMO_DASHBOARDS } from '../shared/dashboards.js';
import { createEmbedBff } from './embed-bff.js';
import { createHostApp } from './host-app.js';
import { dashboardSrcTemplate, isLoopback, originsOf } from './origins.js';
import { TokenLedger } from './token-ledger.js';
import { metabaseRoutes } from './metabase-demo.js';
import { supersetRoutes, type DemoSuperset } from './superset-demo.js';

/** The API key the demo's BFF uses with the emulator (one of its default dev keys). */
const DEMO_API_KEY = 'dev-customer-key';
/** Where the demo's second BFF, answering embed tokens for `?protocol=explo-jwt`, is mounted. */
const EMBED_TOKENS_BASE_PATH = '/embed-jwt';
/**
 * Where the demo's third BFF, answering single-chart embed tokens (`?protocol=explo-jwt&chart=…`),
 * is mounted: it has the vendor mint them (`mint: 'vendor'`, generate_jwt's `chart_id`), since
 * the vendor documents no claim for a chart in a token a BFF mints itself.
 */
const CHART_TOKENS_BASE_PATH = '/embed-chart';
/** The embed secret's id the emulator and that BFF share (its value is random per start). */
const DEMO_EMBED_KEY_ID = 'demo-embed-secret';
/** The faults "simulate a vendor outage" switches on: the vendor API answers 503. */
const OUTAGE = { serverErrorRate: 1 } as const;

export interface StartDemoOptions {
  /** Default `5174`; `0` picks a free port. */
  port?: number;
  /** Default `127.0.0.1`. */
  host?: string;
  /** The emulator's port; default `0` (a free one). */
  emulatorPort?: number;
  /** HS256 secret of the session JWTs (at least 32 characters). Default: random per start. */
  sessionSecret?: string;
  /** Lifetime of a sign-in. Default 1800 s. */
  sessionTtlSeconds?: number;
  /** The BFF's token TTL (`expiresAt`); `0` disables. Default 300 s. */
  tokenTtlSeconds?: number;
  /** The element's `refresh-margin` on `/app`; default: the element's own. */
  refreshMarginSeconds?: number;
  /**
   * How often an open dashboard re-reads its data, and so how soon it notices a dead token and
   * reports `tokenExpired`. Default 3 s, so "Expire the token now" shows its effect at once (the
   * emulator's own default is 15 s).
   */
  dashboardRefreshSeconds?: number;
  /**
   * The built pages (Vite's output). Default: `demo/dist/public`. `false` serves no pages
   * (`npm run dev`, where Vite serves them and proxies the rest here).
   */
  publicDir?: string | false;
  /** More origins the host app is reached under (Vite's dev server), allowed to embed and call the BFF. */
  extraOrigins?: string[];
  /**
   * Behind a TLS-terminating proxy: the origin browsers reach the host app at
   * (`https://app.example.com`). The demo then answers only there: the BFF's `publicOrigin`,
   * the origin allowed to frame dashboards and call the demo API, `Secure` session cookies.
   */
  publicUrl?: string;
  /** Behind a proxy: the origin browsers reach the vendor (the emulator) at; the dashboards' `src-template` uses it. */
  vendorPublicUrl?: string;
  /** Where the BFF logs; default: nowhere. */
  log?: (line: string) => void;
  /** The BFFs' minimum interval between two rotations of one customer's token; default the BFF's (10 s). Tests that rotate at once set 0. */
  minRotationIntervalSeconds?: number;
  /**
   * The Apache Superset of `/superset` (the vendor a visitor may pick): a real one,
   * `supersetFromManifest` of `npm run superset`'s manifest (`EMBED_SUPERSET_MANIFEST` for
   * `npm start`); default `'emulator'`, the emulator's Superset mode on a port of its own; `false`:
   * none (`/superset` says how to start one).
   */
  superset?: DemoSuperset | 'emulator' | false;
}

export interface RunningDemo {
  /** `http://HOST:PORT` of the host app (no trailing slash). */
  url: string;
  /** `http://HOST:PORT` the emulator listens on. */
  emulatorUrl: string;
  /** The in-process emulator: faults, stats, expiry. */
  emulator: Emulator;
  /** The Superset `/superset` embeds (the emulator's Superset mode by default), or undefined with `superset: false`. */
  supersetUrl: string | undefined;
  /** The Metabase `/metabase` embeds: the emulator's Metabase mode, on a port of its own. */
  metabaseUrl: string;
  /** Stops the host app, the BFF and the emulator. */
  close(): Promise<void>;
}

// Compiled, this module sits in demo/dist/server/; run from source (tests), in demo/server/.
const DEFAULT_PUBLIC_DIR = fileURLToPath(new URL(import.meta.url.includes('/dist/server/') ? '../public' : '../dist/public', import.meta.url));
const MIN_SECRET_LENGTH = 32;
const DEFAULT_DASHBOARD_REFRESH_SECONDS = 3;

const checkOrigin = (name: string, value: string): string => {
  let origin: string | undefined;
  try {
    origin = new URL(value).origin;
  } catch {
    origin = undefined;
  }
  if (origin !== value || !/^https?:/.test(value)) throw new TypeError(`${name} must be an origin like https://app.example.com`);
  return value;
};

const checkSeconds = (name: string, value: number | undefined, fallback: number, min = 0) => {
  const result = value ?? fallback;
  if (!Number.isFinite(result) || result < min) throw new TypeError(`${name} must be a number of seconds ≥ ${min}`);
  return result;
};

/**
 * Starts the whole demo in this process: the emulator (the vendor) on its own port, and the
 * host app with its sign-in, the demo API and the BFF mounted at `/embed`.
 *
 * @example
 * ```ts
 * const demo = await startDemo({ port: 0, tokenTtlSeconds: 3, refreshMarginSeconds: 1, dashboardRefreshSeconds: 1 });
 * // open `${demo.url}/login?customer=acme` in a browser …
 * await demo.close();
 * ```
 */
export async function startDemo(options: StartDemoOptions = {}): Promise<RunningDemo> {
  const host = options.host ?? '127.0.0.1';
  const port = options.port ?? 5174;
  const sessionSecret = options.sessionSecret ?? randomBytes(32).toString('base64url');
  if (sessionSecret.length < MIN_SECRET_LENGTH) throw new TypeError(`sessionSecret must be at least ${MIN_SECRET_LENGTH} characters`);
  const sessionTtlSeconds = checkSeconds('sessionTtlSeconds', options.sessionTtlSeconds, 1800, 1);
  const tokenTtlSeconds = checkSeconds('tokenTtlSeconds', options.tokenTtlSeconds, 300);
  const refreshMarginSeconds = options.refreshMarginSeconds === undefined ? null : checkSeconds('refreshMarginSeconds', options.refreshMarginSeconds, 0);
  const dashboardRefreshSeconds = checkSeconds('dashboardRefreshSeconds', options.dashboardRefreshSeconds, DEFAULT_DASHBOARD_REFRESH_SECONDS, 0.1);
  const publicDir = options.publicDir === false ? undefined : (options.publicDir ?? DEFAULT_PUBLIC_DIR);

  // The host app listens first: the emulator and the BFF must know its origin.
  let handle: (request: Request) => Response | Promise<Response> = () => new Response('Starting', { status: 503 });
  const server = createAdaptorServer({ fetch: (request) => handle(request) });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const hostPort = (server.address() as AddressInfo).port;
  const publicUrl = options.publicUrl === undefined ? undefined : checkOrigin('publicUrl', options.publicUrl);
  const vendorPublicUrl = options.vendorPublicUrl === undefined ? undefined : checkOrigin('vendorPublicUrl', options.vendorPublicUrl);
  const origins = publicUrl !== undefined ? [publicUrl] : [...originsOf(host, hostPort), ...(options.extraOrigins ?? [])];

  const closeServer = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      if ('closeAllConnections' in server) server.closeAllConnections();
    });

  let running: Awaited<ReturnType<typeof startEmulator>> | undefined;
  let emulatedSuperset: Awaited<ReturnType<typeof startSupersetEmulator>> | undefined;
  let emulatedMetabase: Awaited<ReturnType<typeof startMetabaseEmulator>> | undefined;
  try {
    // Metabase: its embedding secret made per run (the BFF's alone), its frames only under this demo's origins.
    const metabaseSecret = randomBytes(32).toString('hex');
    emulatedMetabase = await startMetabaseEmulator({
      port: 0,
      host: isLoopback(host) ? '127.0.0.1' : host,
      secretKey: metabaseSecret,
      frameAncestors: ["'self'", ...origins],
    });
    let superset = options.superset === 'emulator' || options.superset === undefined ? undefined : options.superset || undefined;
    if (options.superset === 'emulator' || options.superset === undefined) {
      const guestTokenSecret = randomBytes(32).toString('base64url');
      emulatedSuperset = await startSupersetEmulator({
        port: 0,
        host: isLoopback(host) ? '127.0.0.1' : host,
        guestTokenSecret,
        frameAncestors: ["'self'", ...origins],
      });
      superset = {
        url: emulatedSuperset.url,
        dashboard: SAMPLE_SUPERSET_DASHBOARDS[0]!.uuid,
        guestToken: { secret: guestTokenSecret, audience: DEFAULT_SUPERSET_AUDIENCE },
        emulated: true,
      };
    }
    // 24 random bytes as base64url: 32 ASCII characters, the 32 UTF-8 bytes of an A256GCM key.
    const embedKey = randomBytes(24).toString('base64url');
    running = await startEmulator({
      port: options.emulatorPort ?? 0,
      host: isLoopback(host) ? '127.0.0.1' : host,
      embedOrigins: origins,
      dashboardRefreshSeconds,
      embedSecrets: [{ id: DEMO_EMBED_KEY_ID, value: embedKey }],
    });
    const emulator = running.emulator;
    const bff = createEmbedBff({
      upstreamUrl: running.url,
      apiToken: DEMO_API_KEY,
      sessionSecret,
      tokenTtlSeconds,
      allowedOrigins: publicUrl === undefined ? origins : [],
      publicOrigin: publicUrl,
      log: options.log,
      minRotationIntervalSeconds: options.minRotationIntervalSeconds,
      // Customer tokens are for every dashboard: the timings reports may name the demo's own.
      timingDashboards: DEMO_DASHBOARDS.map((dashboard) => dashboard.id),
    });
    const embedTokenBff = createEmbedBff({
      upstreamUrl: running.url,
      apiToken: DEMO_API_KEY,
      sessionSecret,
      tokenTtlSeconds: tokenTtlSeconds || 300,
      allowedOrigins: origins,
      log: options.log,
      minRotationIntervalSeconds: options.minRotationIntervalSeconds,
      // Only the demo's own dashboards: an embed token for any other is refused (403).
      embedToken: { keyId: DEMO_EMBED_KEY_ID, key: embedKey, dashboards: DEMO_DASHBOARDS.map((dashboard) => dashboard.id) },
    });
    // The same dashboards, each token minted by the vendor (EMBED_JWT_MINT=vendor): it may name one chart.
    const chartTokenBff = createEmbedBff({
      upstreamUrl: running.url,
      apiToken: DEMO_API_KEY,
      api: 'explo-customer',
      sessionSecret,
      tokenTtlSeconds: tokenTtlSeconds || 300,
      allowedOrigins: origins,
      log: options.log,
      minRotationIntervalSeconds: options.minRotationIntervalSeconds,
      embedToken: { keyId: DEMO_EMBED_KEY_ID, mint: 'vendor', dashboards: DEMO_DASHBOARDS.map((dashboard) => dashboard.id) },
    });
    const ledger = new TokenLedger();
    let outage = false;
    const controls: DemoControls = {
      async expireCurrentToken(customer) {
        const token = ledger.latest(customer.id);
        if (!token) return 'no-token';
        // Only a token the vendor still maps to this very customer is expired.
        if (emulator.resolveToken(token)?.providedId !== customer.id) return 'already-refused';
        return emulator.expireToken(token) ? 'expired' : 'already-refused';
      },
      setOutage(on) {
        outage = on;
        emulator.setFaults(on ? OUTAGE : {});
      },
      outage: () => outage,
      vendorStats: () => emulator.stats(),
      timings: () => timingsOf([bff.metrics, embedTokenBff.metrics, chartTokenBff.metrics]),
    };
    const emulatorPort = running.port;
    const app = createHostApp({
      session: { secret: sessionSecret, ttlSeconds: sessionTtlSeconds },
      controls,
      ledger,
      allowedOrigins: () => origins,
      srcTemplateFor: (pageUrl) => (vendorPublicUrl === undefined ? dashboardSrcTemplate(pageUrl, emulatorPort) : `${vendorPublicUrl}/iframe/{dashboard}`),
      secureCookies: publicUrl?.startsWith('https:') ?? false,
      tokenUrl: `${DEFAULT_BFF_BASE_PATH}/token`,
      embedTokenUrl: `${EMBED_TOKENS_BASE_PATH}/token`,
      chartTokenUrl: `${CHART_TOKENS_BASE_PATH}/token`,
      tokenTtlSeconds,
      refreshMarginSeconds,
      embed: { basePath: DEFAULT_BFF_BASE_PATH, routes: bff.routes },
      embedTokens: { basePath: EMBED_TOKENS_BASE_PATH, routes: embedTokenBff.routes },
      chartTokens: { basePath: CHART_TOKENS_BASE_PATH, routes: chartTokenBff.routes },
      publicDir,
    });
    const supersetApp = supersetRoutes({ superset, sessionSecret, origins: () => origins, log: options.log });
    const metabaseApp = metabaseRoutes({
      metabase: { url: emulatedMetabase.url, secret: metabaseSecret, dashboard: 1 },
      sessionSecret,
      origins: () => origins,
      log: options.log,
    });
    handle = async (request) => {
      for (const vendorApp of [supersetApp, metabaseApp]) {
        const answer = await vendorApp.fetch(request);
        if (answer.status !== 404) return answer;
      }
      return app.fetch(request);
    };

    const emulatorRun = running;
    const supersetRun = emulatedSuperset;
    const metabaseRun = emulatedMetabase;
    let closing: Promise<void> | undefined;
    return {
      url: publicUrl ?? (originsOf(host, hostPort)[0] as string),
      emulatorUrl: running.url,
      emulator,
      supersetUrl: superset?.url,
      metabaseUrl: metabaseRun.url,
      close: () =>
        (closing ??= (async () => {
          await closeServer();
          await bff.close();
          await embedTokenBff.close();
          await chartTokenBff.close();
          await emulatorRun.close();
          await supersetRun?.close();
          await metabaseRun.close();
        })()),
    };
  } catch (error) {
    await closeServer();
    await running?.close();
    await emulatedSuperset?.close();
    await emulatedMetabase?.close();
    throw error;
  }
}

/** The BFFs' timings histograms, summed over vendor and dashboard: counts and means, by kind. */
async function timingsOf(all: readonly BffMetrics[]): Promise<DemoTimings> {
  const sums = { loads: 0, loadSum: 0, loadTokens: 0, loadTokenSum: 0, renewals: 0, renewalTokenSum: 0 };
  for (const metrics of all) {
    for (const { metricName, labels, value } of (await metrics.dashboardLoad.get()).values) {
      if (labels.kind !== 'load') continue;
      if (metricName?.endsWith('_count')) sums.loads += value;
      else if (metricName?.endsWith('_sum')) sums.loadSum += value;
    }
    for (const { metricName, labels, value } of (await metrics.dashboardToken.get()).values) {
      const load = labels.kind === 'load';
      if (metricName?.endsWith('_count')) sums[load ? 'loadTokens' : 'renewals'] += value;
      else if (metricName?.endsWith('_sum')) sums[load ? 'loadTokenSum' : 'renewalTokenSum'] += value;
    }
  }
  const mean = (sum: number, count: number) => (count === 0 ? null : sum / count);
  return {
    loads: sums.loads,
    loadSeconds: mean(sums.loadSum, sums.loads),
    loadTokenSeconds: mean(sums.loadTokenSum, sums.loadTokens),
    renewals: sums.renewals,
    renewalTokenSeconds: mean(sums.renewalTokenSum, sums.renewals),
  };
}
