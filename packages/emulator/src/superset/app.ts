import { Hono } from 'hono';
import { parseFaultSettings } from '../faults/settings.js';
import type { EmulatorEnv } from '../http/body.js';
import { registerAuthRoutes } from './auth-routes.js';
import { registerChartDataRoutes } from './chart-data-routes.js';
import { registerEmbeddedPageRoute } from './embedded-page-route.js';
import { registerGuestTokenRoute } from './guest-token-route.js';
import { faultGate, json, readJson, type SupersetRouteContext } from './http.js';
import {
  resolveSupersetOptions,
  SUPERSET_FAULT_OPERATIONS,
  type SupersetEmulatorOptions,
  type SupersetFaultOperation,
  type SupersetFaultSettings,
} from './options.js';
import type { SupersetSampleDashboard } from './sample-data.js';

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
  const byUuid = new Map(config.dashboards.map((dashboard) => [dashboard.uuid, dashboard]));

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

  const context: SupersetRouteContext = { config, withFaults: faultGate(() => faults, requests), byUuid };
  registerAuthRoutes(app, context);
  registerGuestTokenRoute(app, context);
  registerChartDataRoutes(app, context);
  registerEmbeddedPageRoute(app, context);

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
