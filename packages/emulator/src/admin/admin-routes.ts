import { Hono } from 'hono';
import { EMULATOR_ADMIN_ROUTES, EmulatorErrorCode, type EmulatorStats, type FaultSettings } from '@embedded-dashboard/protocol';
import { readJsonObject, type EmulatorEnv } from '../http/body.js';
import { EmulatorHttpError } from '../http/errors.js';
import { parseFaultSettings } from '../faults/settings.js';

export interface AdminDependencies {
  maxBodyBytes: number;
  reset(): Promise<void>;
  expireToken(token: string): Promise<boolean>;
  setFaults(settings: FaultSettings): void;
  stats(): EmulatorStats;
}

/** The test-only `/__emulator/*` routes; mounted only when admin is enabled. */
export function adminRoutes(deps: AdminDependencies): Hono<EmulatorEnv> {
  const app = new Hono<EmulatorEnv>();

  app.post(EMULATOR_ADMIN_ROUTES.reset, async (c) => {
    await deps.reset();
    return c.json({ success: 1 });
  });

  app.post(EMULATOR_ADMIN_ROUTES.expire, async (c) => {
    const body = await readJsonObject(c, deps.maxBodyBytes);
    const keys = Object.keys(body);
    if (typeof body.token !== 'string' || body.token === '' || keys.length !== 1) {
      throw new EmulatorHttpError(EmulatorErrorCode.invalidField, 'body must be { "token": "<user group token>" }');
    }
    if (!(await deps.expireToken(body.token))) throw new EmulatorHttpError(EmulatorErrorCode.unknownToken, 'the emulator never issued this token');
    return c.json({ success: 1 });
  });

  app.post(EMULATOR_ADMIN_ROUTES.faults, async (c) => {
    const body = await readJsonObject(c, deps.maxBodyBytes);
    let settings: FaultSettings;
    try {
      settings = parseFaultSettings(body);
    } catch (error) {
      throw new EmulatorHttpError(EmulatorErrorCode.invalidField, (error as Error).message);
    }
    deps.setFaults(settings);
    return c.json({ success: 1, faults: settings });
  });

  app.get(EMULATOR_ADMIN_ROUTES.stats, (c) => c.json(deps.stats()));

  return app;
}
