import type { Hono } from 'hono';
import { createBffMetrics, createEmbedRoutes, createJsonLogger, type BffMetrics, type EmbedTokenOptions } from '@embedded-dashboard/bff';
import { UserGroupClient } from '@embedded-dashboard/client';
import type { UpstreamApiName } from '@embedded-dashboard/protocol';
import { SESSION_AUDIENCE, SESSION_COOKIE, SESSION_ISSUER } from './session.js';

export interface EmbedBffOptions {
  upstreamUrl: string;
  apiToken: string;
  sessionSecret: string;
  tokenTtlSeconds: number;
  allowedOrigins: string[];
  /** Behind a proxy: the host app's public origin (the BFF's `publicOrigin`). */
  publicOrigin?: string | undefined;
  /** Receives the BFF's JSON log lines; default: none. */
  log?: ((line: string) => void) | undefined;
  /** Embed tokens instead of customer tokens (the `explo-jwt` page's BFF). */
  embedToken?: EmbedTokenOptions;
  /** The vendor API the BFF speaks; default the client's (`user-group-service`). `mint: 'vendor'` needs `explo-customer`. */
  api?: UpstreamApiName;
  /** The BFF's `minRotationIntervalSeconds`; default the BFF's own (10 s). */
  minRotationIntervalSeconds?: number | undefined;
  /** With customer tokens: the dashboards the page's timings reports may name (`timings.dashboards`). */
  timingDashboards?: string[];
}

export interface EmbedBff {
  /** `POST /token` and `POST /token/rotate`, to mount at `/embed`. */
  routes: Hono;
  /** Its metrics: the status panel reads the timings the page reported (`report-timings`) from them. */
  metrics: BffMetrics;
  close(): Promise<void>;
}

/**
 * The BFF as an integrator mounts it: token routes that trust only the session cookie the
 * demo's `/login` sets, and call the vendor (the emulator) with the secret API key.
 */
export function createEmbedBff(options: EmbedBffOptions): EmbedBff {
  const upstream = new UserGroupClient({ baseUrl: options.upstreamUrl, apiToken: options.apiToken, ...(options.api && { api: options.api }) });
  const metrics = createBffMetrics();
  const routes = createEmbedRoutes({
    upstream,
    metrics,
    ...(options.timingDashboards && { timings: { dashboards: options.timingDashboards } }),
    session: { secret: options.sessionSecret, cookie: SESSION_COOKIE, issuer: SESSION_ISSUER, audience: SESSION_AUDIENCE },
    tokenTtlSeconds: options.tokenTtlSeconds,
    ...(options.minRotationIntervalSeconds !== undefined && { minRotationIntervalSeconds: options.minRotationIntervalSeconds }),
    allowedOrigins: options.allowedOrigins,
    publicOrigin: options.publicOrigin,
    secrets: [options.apiToken],
    ...(options.embedToken && { embedToken: options.embedToken }),
    logger: createJsonLogger({ write: options.log ?? (() => undefined), level: options.log ? 'info' : 'silent', secrets: [options.apiToken] }),
  });
  return {
    routes,
    metrics,
    async close() {
      upstream.close();
    },
  };
}
