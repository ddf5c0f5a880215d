import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SignJWT } from 'jose';
import {
  BFF_LISTENING_PREFIX,
  BFF_ROUTES,
  DEFAULT_BFF_BASE_PATH,
  EMULATOR_ADMIN_ROUTES,
  EMULATOR_LISTENING_PREFIX,
  type EmulatorStats,
  type FaultSettings,
} from '@embedded-dashboard/protocol';
import { startNodeProcess, type RunningProcess } from '../support/processes.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';

/** The repository root: the first folder above this file holding packages/bff (this file also runs compiled, from bench/dist). */
const repoRoot = (() => {
  for (let dir = dirname(fileURLToPath(import.meta.url)); dir !== dirname(dir); dir = dirname(dir)) {
    if (existsSync(join(dir, 'packages', 'bff', 'package.json'))) return dir;
  }
  throw new Error('no repository root above test/redis/fleet.ts');
})();

const builtCli = (pkg: string) => {
  const path = join(repoRoot, 'packages', pkg, 'dist', 'cli', 'bin.js');
  // `npm test` builds first; a bare `vitest run` on a fresh checkout would not.
  if (!existsSync(path)) throw new Error(`${path} is missing: run \`npm run build\` first`);
  return path;
};

/** A server the helpers below talk to: only its base URL matters. */
type Served = Pick<RunningProcess, 'url'>;

/** Any browser origin the BFFs allow; the requests come from Node, so only the header matters. */
export const APP_ORIGIN = 'http://app.example.test';
const SESSION_SECRET = 'scale-out-test-session-secret-0123456789';
const secretKey = new TextEncoder().encode(SESSION_SECRET);

/** One Redis, one emulator and BFF CLI processes sharing that Redis. */
export interface Fleet<R = RedisServer> {
  redis: R;
  emulator: RunningProcess;
  bffs: [RunningProcess, RunningProcess, ...RunningProcess[]];
  /** Starts one more BFF process with the same configuration and `env` over it (it is stopped with the fleet, not added to `bffs`). */
  addBff(env?: Record<string, string>): Promise<RunningProcess>;
  stop(): Promise<void>;
}

export interface FleetOptions {
  /** Extra emulator flags; default none (the vendor's rate limit off). */
  emulatorArgs?: string[];
  /** Extra BFF environment (e.g. `EMBED_UPSTREAM_RATE`). */
  bffEnv?: Record<string, string>;
  /** How many BFF processes; default 2. */
  bffCount?: number;
}

/** A fleet on one throwaway redis-server. */
export async function startFleet(redisBinary: string, options: FleetOptions = {}): Promise<Fleet> {
  const redis = await startRedisServer(redisBinary);
  return startFleetOn(redis, { EMBED_REDIS_URL: redis.url }, () => redis.dispose(), options);
}

/** A fleet on a running Redis deployment: `redisEnv` says how the BFFs reach it, `disposeRedis` ends it. */
export async function startFleetOn<R>(
  redis: R,
  redisEnv: Record<string, string>,
  disposeRedis: () => Promise<void>,
  options: FleetOptions = {},
): Promise<Fleet<R>> {
  const started: RunningProcess[] = [];
  const stop = async () => {
    await Promise.all(started.map((p) => p.stop()));
    await disposeRedis();
  };
  try {
    // Tests that count vendor calls exactly set the vendor's rate limit themselves, if at all.
    const emulatorArgs = options.emulatorArgs ?? ['--rate-limit', '0'];
    const emulator = await startNodeProcess(builtCli('emulator'), ['--port', '0', '--admin', ...emulatorArgs], { readyPrefix: EMULATOR_LISTENING_PREFIX });
    started.push(emulator);
    const env = {
      EMBED_PORT: '0',
      EMBED_HOST: '127.0.0.1',
      ...redisEnv,
      EMBED_UPSTREAM_URL: emulator.url,
      EMBED_API_TOKEN: 'dev-customer-key',
      EMBED_SESSION_SECRET: SESSION_SECRET,
      EMBED_ALLOWED_ORIGINS: APP_ORIGIN,
      // As the emulator's limit: off unless a test is about the vendor budget.
      EMBED_UPSTREAM_RATE: '0',
      ...options.bffEnv,
    };
    const addBff = async (extra: Record<string, string> = {}) => {
      const bff = await startNodeProcess(builtCli('bff'), [], { env: { ...env, ...extra }, readyPrefix: BFF_LISTENING_PREFIX });
      started.push(bff);
      return bff;
    };
    const count = Math.max(2, options.bffCount ?? 2);
    const bffs = await Promise.all(Array.from({ length: count }, () => addBff()));
    return { redis, emulator, bffs: bffs as Fleet<R>['bffs'], addBff, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** A session JWT for customer `orgId`, as the integrator's login would issue it. */
export function sessionFor(orgId: string): Promise<string> {
  return sessionWith(orgId, { region: 'eu', plan: 'pro' });
}

/** The same with other `embed_properties` (not a parameter of `sessionFor`: that is passed to `Array.map`). */
export function sessionWith(orgId: string, properties: Record<string, string>): Promise<string> {
  return new SignJWT({ org_id: orgId, org_name: `Org ${orgId}`, embed_properties: properties })
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuedAt()
    .setExpirationTime('15m')
    .sign(secretKey);
}

export interface TokenAnswer {
  status: number;
  token: string | undefined;
  /** Seconds, from the `Retry-After` header. */
  retryAfter?: number;
  /** The error body's `code` and `retryable`, for an error answer. */
  code?: string;
  retryable?: boolean;
}

const post = async (bff: Served, route: string, session: string, body: unknown): Promise<TokenAnswer> => {
  const response = await fetch(`${bff.url}${DEFAULT_BFF_BASE_PATH}${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: APP_ORIGIN, authorization: `Bearer ${session}` },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(15_000),
  });
  const json = (await response.json().catch(() => undefined)) as { token?: unknown; error?: { code?: unknown; retryable?: unknown } } | undefined;
  const retryAfter = response.headers.get('retry-after');
  const error = json?.error;
  return {
    status: response.status,
    token: typeof json?.token === 'string' ? json.token : undefined,
    ...(retryAfter === null ? {} : { retryAfter: Number(retryAfter) }),
    ...(typeof error?.code === 'string' ? { code: error.code } : {}),
    ...(typeof error?.retryable === 'boolean' ? { retryable: error.retryable } : {}),
  };
};

export const requestToken = (bff: Served, session: string) => post(bff, BFF_ROUTES.token, session, {});
export const requestRotation = (bff: Served, session: string, token: string) => post(bff, BFF_ROUTES.rotate, session, { token });

export async function readiness(bff: Served): Promise<number> {
  const response = await fetch(`${bff.url}${BFF_ROUTES.readyz}`, { signal: AbortSignal.timeout(5_000) });
  await response.body?.cancel();
  return response.status;
}

export async function emulatorStats(emulator: Served): Promise<EmulatorStats['requests']> {
  const response = await fetch(`${emulator.url}${EMULATOR_ADMIN_ROUTES.stats}`, { signal: AbortSignal.timeout(5_000) });
  return ((await response.json()) as EmulatorStats).requests;
}

/** The group a user group token identifies, as the vendor's dashboard host sees it (undefined when refused). */
async function groupOf(emulator: Served, token: string): Promise<{ name?: string; properties: unknown } | undefined> {
  const response = await fetch(`${emulator.url}/iframe-data/sales-overview`, {
    headers: { Authorization: `Bearer ${token}` },
    signal: AbortSignal.timeout(5_000),
  });
  if (response.status !== 200) return undefined;
  const body = (await response.json()) as { group?: { name?: string }; variables?: unknown };
  // The group's properties are the dashboard's variables.
  return { ...body.group, properties: body.variables };
}

/** The name of the group a user group token identifies (undefined when refused). */
export const groupNameOf = async (emulator: Served, token: string): Promise<string | undefined> => (await groupOf(emulator, token))?.name;

/** The properties the vendor holds for the group a user group token identifies. */
export const groupPropertiesOf = async (emulator: Served, token: string): Promise<unknown> => (await groupOf(emulator, token))?.properties;

/** Replaces the emulator's fault settings (`{}` clears them). */
export async function setFaults(emulator: Served, settings: FaultSettings): Promise<void> {
  const response = await fetch(`${emulator.url}${EMULATOR_ADMIN_ROUTES.faults}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(settings),
    signal: AbortSignal.timeout(5_000),
  });
  if (!response.ok) throw new Error(`emulator faults answered ${response.status}`);
}

/** Whether the vendor accepts `token` now, and the name of its group (what the dashboard host sees). */
export async function vendorView(emulator: Served, token: string): Promise<{ alive: boolean; name?: string | undefined }> {
  const group = await groupOf(emulator, token);
  return group === undefined ? { alive: false } : { alive: true, name: group.name };
}

/** Everything the emulator counted, rate-limit refusals included. */
export async function vendorStats(emulator: Served): Promise<EmulatorStats> {
  const response = await fetch(`${emulator.url}${EMULATOR_ADMIN_ROUTES.stats}`, { signal: AbortSignal.timeout(5_000) });
  return (await response.json()) as EmulatorStats;
}
