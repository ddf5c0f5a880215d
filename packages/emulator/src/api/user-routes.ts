import { Hono, type Context } from 'hono';
import { EmulatorErrorCode, USER_API_PATH, type Environment, type FaultOperation, type FaultSettings } from '@embedded-dashboard/protocol';
import { readJsonObject, type EmulatorEnv } from '../http/body.js';
import { EmulatorHttpError, errorResponse } from '../http/errors.js';
import { drawFault, type FaultKind } from '../faults/settings.js';
import { losingFaultResponse, rejectingFaultResponse } from '../faults/respond.js';
import type { ApiKeyRateLimit } from '../rate-limit/api-key-rate-limit.js';
import type { GroupStore } from '../store/group-store.js';
import { authenticate } from './auth.js';
import { getOrCreateResponse, rotateResponse, updateResponse } from './responses.js';
import { parseGroupRequest, parseRotateRequest } from './validate.js';

export interface UserApiDependencies {
  store: GroupStore;
  apiKeys: ReadonlyMap<string, Environment>;
  maxBodyBytes: number;
  /** Resolves once the store's current state is durable (immediately without a data file). */
  persist(): Promise<void>;
  /**
   * Resolves once every change already made is durable, writing nothing when it is. A read
   * that finds state another request is still persisting (a group being created, updated or
   * rotated) waits here, so it never acknowledges what a crash could still lose.
   */
  durable(): Promise<void>;
  faults(): FaultSettings;
  random(): number;
  /** Incremented for every request that reaches an operation, failed ones included. */
  counters: Record<FaultOperation, number>;
  /** The per-API-key request limit (`--rate-limit`). */
  rateLimit: ApiKeyRateLimit;
  /** Incremented for every request the rate limit refused. */
  rejected: { rateLimited: number };
}

/** The operations both APIs have (the Customer API adds `generateJwt`). */
export type GroupOperation = Exclude<FaultOperation, 'generateJwt'>;

const OPERATION_BY_METHOD: Readonly<Record<string, GroupOperation>> = { GET: 'getOrCreate', PUT: 'update', POST: 'rotate' };

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** `/api/user`: get-or-create (GET), update (PUT) and rotate (POST), exactly as the spec. */
export function userApiRoutes(deps: UserApiDependencies): Hono<EmulatorEnv> {
  const app = new Hono<EmulatorEnv>();

  const persisted = persistedBy(deps.persist);

  const operations: Record<GroupOperation, (c: Context<EmulatorEnv>, environment: Environment) => Promise<Response>> = {
    async getOrCreate(c, environment) {
      const request = parseGroupRequest(await readJsonObject(c, deps.maxBodyBytes));
      const { group, created } = deps.store.getOrCreate(environment, request);
      await persisted(created ? deps.persist : deps.durable);
      return c.json(getOrCreateResponse(group, created));
    },
    async update(c, environment) {
      const request = parseGroupRequest(await readJsonObject(c, deps.maxBodyBytes));
      const group = deps.store.update(environment, request);
      if (!group) throw new EmulatorHttpError(EmulatorErrorCode.notFound, 'no user group with this user_group_id in this environment');
      await persisted();
      return c.json(updateResponse(group));
    },
    async rotate(c, environment) {
      const currentToken = parseRotateRequest(await readJsonObject(c, deps.maxBodyBytes));
      const group = deps.store.rotate(environment, currentToken);
      if (!group) throw new EmulatorHttpError(EmulatorErrorCode.unknownToken, 'current_token is not the current token of a user group in this environment');
      await persisted();
      return c.json(rotateResponse(group));
    },
  };

  const run = operationRunner(deps);
  app.all(USER_API_PATH, async function userApi(c) {
    const operation = OPERATION_BY_METHOD[c.req.method];
    if (!operation) {
      return errorResponse(EmulatorErrorCode.methodNotAllowed, `method ${c.req.method.slice(0, 16)} is not allowed; use GET, PUT or POST`, 405, {
        Allow: 'GET, PUT, POST',
      });
    }
    return run(c, operation, 'authorization', (environment) => operations[operation](c, environment));
  });

  return app;
}

/**
 * What every operation of either API goes through, in order: its counter, latency and faults
 * (a fault that rejects answers before authentication, as a proxy in front would), then
 * authentication with the API's header, the per-key rate limit (one budget for both APIs),
 * then the operation.
 */
export function operationRunner(deps: Pick<UserApiDependencies, 'apiKeys' | 'faults' | 'random' | 'counters' | 'rateLimit' | 'rejected'>) {
  return async function runOperation(
    c: Context<EmulatorEnv>,
    operation: FaultOperation,
    authHeader: string,
    perform: (environment: Environment) => Promise<Response>,
  ): Promise<Response> {
    deps.counters[operation]++;
    const settings = deps.faults();
    const applies = !settings.operations || settings.operations.includes(operation);
    if (applies && settings.latencyMs) await sleep(settings.latencyMs);
    const fault: FaultKind | undefined = drawFault(settings, operation, deps.random);
    const rejected = fault && rejectingFaultResponse(fault, settings.retryAfterSeconds ?? 1);
    if (rejected) return rejected;
    const { apiKey, environment } = authenticate(c.req.header(authHeader), deps.apiKeys, authHeader);
    const retryAfterSeconds = deps.rateLimit.take(apiKey);
    if (retryAfterSeconds !== undefined) {
      deps.rejected.rateLimited++;
      return errorResponse(EmulatorErrorCode.rateLimited, 'rate limit exceeded for this API key', 429, { 'Retry-After': String(retryAfterSeconds) });
    }
    const response = await perform(environment);
    return (fault && losingFaultResponse(c, fault)) ?? response;
  };
}

/**
 * Waits for `wait` (by default: the store's state is durable); a failed write is the emulator's
 * own `internal` error.
 */
export function persistedBy(persist: () => Promise<void>): (wait?: () => Promise<void>) => Promise<void> {
  return async (wait = persist) => {
    try {
      await wait();
    } catch (error) {
      throw new EmulatorHttpError(EmulatorErrorCode.internal, 'the change could not be persisted', { cause: error });
    }
  };
}
