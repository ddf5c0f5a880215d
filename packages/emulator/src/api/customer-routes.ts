import { Hono, type Context } from 'hono';
import {
  EXPLO_AUTH_HEADER,
  EXPLO_CUSTOMER_ROUTES,
  EmulatorErrorCode,
  type Environment,
  type ExploCustomer,
  type FaultOperation,
} from '@embedded-dashboard/protocol';
import { encryptEmbedToken } from '../embed/embed-token.js';
import type { EmbedKeyring } from '../embed/embed-secrets.js';
import { readJsonObject, type EmulatorEnv } from '../http/body.js';
import { EmulatorHttpError, errorResponse } from '../http/errors.js';
import type { StoredGroup } from '../store/snapshot.js';
import { operationRunner, persistedBy, type UserApiDependencies } from './user-routes.js';
import { parseCustomerRequest, parseCustomerUpdate, parseRotateRequest } from './validate.js';
import { parseGenerateJwtRequest } from './validate-generate-jwt.js';
import { SAMPLE_CHARTS } from '../dashboard-host/sample-data/sample-dashboards.js';

/** What `generate_jwt` needs beyond the groups: the embed secrets, the dashboards served, the clock. */
export interface EmbedTokenDependencies {
  keyring: EmbedKeyring;
  dashboards: ReadonlySet<string>;
  now(): number;
}

/** `customer` as the vendor documents it, from the same stored group `/api/user` serves. */
const customer = (group: StoredGroup): ExploCustomer & Record<string, unknown> => ({
  token: group.token,
  name: group.name,
  provided_id: group.providedId,
  is_demo_group: false,
  properties: group.properties,
  parent_schema_datasource_mapping: { ...group.mapping },
});

const OPERATION_BY_PATH: Readonly<Record<string, FaultOperation>> = {
  [EXPLO_CUSTOMER_ROUTES.getOrCreate]: 'getOrCreate',
  [EXPLO_CUSTOMER_ROUTES.update]: 'update',
  [EXPLO_CUSTOMER_ROUTES.refreshToken]: 'rotate',
  [EXPLO_CUSTOMER_ROUTES.generateJwt]: 'generateJwt',
};

/**
 * The vendor's current Customer API over the same groups, tokens, counters and faults as
 * `/api/user`: `POST /api/create_customer/`, `/api/update_customer/`,
 * `/api/refresh_customer_token/` with `Explo-Authorization: Token <key>`. Like the vendor, a
 * route without its trailing slash, or another method, is "Method not allowed" (405).
 */
export function customerApiRoutes(deps: UserApiDependencies & { embed: EmbedTokenDependencies }): Hono<EmulatorEnv> {
  const app = new Hono<EmulatorEnv>();
  const persisted = persistedBy(deps.persist);
  const run = operationRunner(deps);

  const operations: Record<FaultOperation, (c: Context<EmulatorEnv>, environment: Environment) => Promise<Response>> = {
    async getOrCreate(c, environment) {
      const request = parseCustomerRequest(await readJsonObject(c, deps.maxBodyBytes));
      const { group, created } = deps.store.getOrCreate(environment, request);
      // As /api/user: a group found still being persisted is answered only once it is durable.
      await persisted(created ? deps.persist : deps.durable);
      return c.json({ success: 1, new_customer: created, customer: customer(group) });
    },
    async update(c, environment) {
      const request = parseCustomerUpdate(await readJsonObject(c, deps.maxBodyBytes));
      const group = deps.store.update(environment, request);
      if (!group) throw new EmulatorHttpError(EmulatorErrorCode.notFound, 'no customer with this provided_id in this environment');
      await persisted();
      return c.json({ success: 1, customer: customer(group) });
    },
    async rotate(c, environment) {
      const currentToken = parseRotateRequest(await readJsonObject(c, deps.maxBodyBytes));
      const group = deps.store.rotate(environment, currentToken);
      if (!group) throw new EmulatorHttpError(EmulatorErrorCode.unknownToken, 'current_token is not the current token of a customer in this environment');
      await persisted();
      return c.json({ success: 1, customer: customer(group) });
    },
    async generateJwt(c, environment) {
      const request = parseGenerateJwtRequest(await readJsonObject(c, deps.maxBodyBytes));
      const { keyring, dashboards, now } = deps.embed;
      if (!deps.store.find(environment, request.providedId))
        throw new EmulatorHttpError(EmulatorErrorCode.notFound, 'no customer with this provided_id in this environment');
      if (!dashboards.has(request.embedId)) throw new EmulatorHttpError(EmulatorErrorCode.notFound, 'no dashboard with this embed_id');
      if (request.chartId !== undefined && !(SAMPLE_CHARTS.get(request.embedId) ?? []).includes(request.chartId))
        throw new EmulatorHttpError(EmulatorErrorCode.notFound, 'no chart with this chart_id in this dashboard');
      // A secret of another environment's customers is not this key's to use (and not named as such).
      const secret = request.keyId === undefined ? keyring.defaultFor(environment) : keyring.get(request.keyId);
      if (secret?.environment !== environment) throw new EmulatorHttpError(EmulatorErrorCode.notFound, 'no embed secret with this key_id');
      const jwt = await encryptEmbedToken(secret, {
        cst: request.providedId,
        dsh: request.embedId,
        exp: Math.floor(now() / 1000) + request.expirationSeconds,
        ...(request.issuer !== undefined && { iss: request.issuer }),
        ...(request.reportBuilderFeatures !== undefined && { rbc: request.reportBuilderFeatures }),
        ...(request.disableEditableSections !== undefined && { des: request.disableEditableSections }),
        ...(request.chartId !== undefined && { cht: request.chartId }),
      });
      return c.json({ success: 1, jwt });
    },
  };

  for (const [path, operation] of Object.entries(OPERATION_BY_PATH)) {
    const notAllowed = (c: Context<EmulatorEnv>) =>
      errorResponse(
        EmulatorErrorCode.methodNotAllowed,
        `${c.req.method.slice(0, 16)} ${c.req.path.slice(0, 64)} is not allowed; use POST ${path} (with the trailing slash)`,
        405,
        {
          Allow: 'POST',
        },
      );
    app.all(path.slice(0, -1), notAllowed);
    app.all(path, async function customerApi(c) {
      if (c.req.method !== 'POST') return notAllowed(c);
      return run(c, operation, EXPLO_AUTH_HEADER.toLowerCase(), (environment) => operations[operation](c, environment));
    });
  }
  return app;
}
