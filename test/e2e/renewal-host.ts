/**
 * The page of the renewal soak (./renewal-soak.test.ts): one `<embedded-dashboard>` per protocol
 * (the shipped standalone files), each with a real BFF mount of its own (`createEmbedRoutes`)
 * against the emulator (Explo's customer tokens, Explo's embed tokens, the emulator's Superset
 * mode for guest tokens signed by the BFF, its Metabase mode for guest embeds the BFF signs), all
 * on short token lifetimes. Every token answer the
 * BFFs gave is recorded (mount, path, status); the page records every element event and every
 * value of each element's `state`.
 *
 * A protocol is one entry of `SOAK_PROTOCOLS` (its BFF mount, its element's attributes, its
 * lifetime, from which the soak takes how many renewals it waits for); a new vendor also brings
 * its emulator's mode and its standalone script, started and served below.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createAdaptorServer } from '@hono/node-server';
import { Hono } from 'hono';
import { SignJWT } from 'jose';
import { createEmbedRoutes, createJsonLogger, type BffOptions } from '@embedded-dashboard/bff';
import { metabaseVendor } from '@embedded-dashboard/bff/metabase';
import { supersetVendor } from '@embedded-dashboard/bff/superset';
import { UserGroupClient } from '@embedded-dashboard/client';
import {
  DEFAULT_SUPERSET_AUDIENCE,
  SAMPLE_SUPERSET_DASHBOARDS,
  startEmulator,
  startMetabaseEmulator,
  startSupersetEmulator,
} from '@embedded-dashboard/emulator';
import { EXPLO_JWT_IFRAME_PATH } from '@embedded-dashboard/protocol';
import { METABASE_SECRET, SANDBOX as METABASE_SANDBOX } from './metabase-host.js';

const standalone = (file: string) => readFileSync(fileURLToPath(new URL(`../../packages/element/dist/standalone/${file}`, import.meta.url)));
const SESSION_SECRET = 'e2e-renewal-soak-session-secret-0123456789';
const API_KEY = 'dev-customer-key';
const EMBED_KEY_ID = 'soak-embed-secret';

/** Where a protocol's BFF gets what it needs. */
export interface SoakVendors {
  exploUrl: string;
  /** An Explo of its own for the default protocol: its 15 s rotations of the session's user group leave `explo`'s alone. */
  messageUrl: string;
  embedKey: string;
  supersetUrl: string;
  supersetSecret: string;
  metabaseUrl: string;
}

/** One protocol of the soak: its BFF options, its element, and how many scheduled renewals prove it. */
export interface SoakProtocol {
  name: string;
  /** The token lifetime (s) its BFF hands out. */
  ttlSeconds: number;
  bff(vendors: SoakVendors): Omit<BffOptions, 'session' | 'allowedOrigins' | 'logger'>;
  /** The element's attributes besides `id` and `token-url`. */
  attributes(vendors: SoakVendors): Record<string, string>;
}

const upstream = (vendors: SoakVendors, api?: 'explo-customer') => new UserGroupClient({ baseUrl: vendors.exploUrl, apiToken: API_KEY, ...(api && { api }) });

/**
 * Lifetimes: 15 s (`EMBED_TOKEN_TTL=15`) for the default protocol's customer tokens and for
 * embed tokens, Superset's and Metabase's shortest (30 s), and 30 s for `explo`, whose every
 * renewal loads the whole dashboard again in a swap frame: on a loaded two-core machine running
 * three browsers, one such load in many took longer than the swap's 15 s timeout, a limit of that
 * protocol rather than of the renewal.
 */
export const SOAK_PROTOCOLS: readonly SoakProtocol[] = [
  {
    // The element's default protocol: Explo's customer token posted to the running frame.
    name: 'message',
    ttlSeconds: 15,
    bff: (v) => ({ upstream: upstream({ ...v, exploUrl: v.messageUrl }), tokenTtlSeconds: 15, secrets: [API_KEY] }),
    // Another dashboard than `explo`'s: a scope of its own on the page (no token shared between the two).
    attributes: (v) => ({ dashboard: 'support-metrics', environment: 'production', 'src-template': `${v.messageUrl}/iframe/{dashboard}?env={environment}` }),
  },
  {
    name: 'explo',
    ttlSeconds: 30,
    bff: (v) => ({ upstream: upstream(v), tokenTtlSeconds: 30, secrets: [API_KEY] }),
    attributes: (v) => ({
      protocol: 'explo',
      dashboard: 'sales-overview',
      environment: 'production',
      'src-template': `${v.exploUrl}/iframe/{dashboard}/{token}/{environment}`,
    }),
  },
  {
    name: 'explo-jwt',
    ttlSeconds: 15,
    bff: (v) => ({ upstream: upstream(v), tokenTtlSeconds: 15, secrets: [API_KEY], embedToken: { keyId: EMBED_KEY_ID, key: v.embedKey } }),
    attributes: (v) => ({ protocol: 'explo-jwt', dashboard: 'sales-overview', environment: 'production', 'src-template': v.exploUrl + EXPLO_JWT_IFRAME_PATH }),
  },
  {
    name: 'superset',
    ttlSeconds: 30,
    bff: (v) => ({
      vendor: supersetVendor({
        dashboards: [SAMPLE_SUPERSET_DASHBOARDS[0]!.uuid],
        rls: 'customer_id = {org_id}',
        guestTokenSecret: v.supersetSecret,
        audience: DEFAULT_SUPERSET_AUDIENCE,
        ttlSeconds: 30,
      }),
    }),
    attributes: (v) => ({
      protocol: 'superset',
      dashboard: SAMPLE_SUPERSET_DASHBOARDS[0]!.uuid,
      'src-template': `${v.supersetUrl}/embedded/{dashboard}`,
      sandbox: 'allow-same-origin allow-scripts allow-presentation allow-downloads allow-forms allow-popups',
    }),
  },
  {
    name: 'metabase',
    ttlSeconds: 30,
    bff: () => ({
      vendor: metabaseVendor({ secret: METABASE_SECRET, params: { customer_id: '{org_id}' }, dashboards: [1], ttlSeconds: 30 }),
      secrets: [METABASE_SECRET],
    }),
    attributes: (v) => ({ protocol: 'metabase', dashboard: '1', 'src-template': `${v.metabaseUrl}/embed/dashboard/{token}`, sandbox: METABASE_SANDBOX }),
  },
];

export interface TokenAnswer {
  protocol: string;
  path: string;
  status: number;
}

export interface RenewalHost {
  url: string;
  answers: TokenAnswer[];
  /** A session cookie value for `customer` (one per engine: their tokens stay apart at the vendor). */
  session(customer: string): Promise<string>;
  close(): Promise<void>;
}

/** Starts the emulators, the BFF mounts and the page on 127.0.0.1:0. */
export async function startRenewalHost(protocols: readonly SoakProtocol[] = SOAK_PROTOCOLS): Promise<RenewalHost> {
  const app = new Hono();
  const server = createAdaptorServer({ fetch: (request) => app.fetch(request) });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // 24 random bytes as base64url: the 32 ASCII bytes of an A256GCM key.
  const embedKey = randomBytes(24).toString('base64url');
  const supersetSecret = randomBytes(32).toString('base64url');
  const [explo, message, superset, metabase] = await Promise.all([
    // The dashboards re-read their data every second: a token they find dead shows at once.
    startEmulator({ port: 0, host: '127.0.0.1', embedOrigins: [origin], dashboardRefreshSeconds: 1, embedSecrets: [{ id: EMBED_KEY_ID, value: embedKey }] }),
    startEmulator({ port: 0, host: '127.0.0.1', embedOrigins: [origin], dashboardRefreshSeconds: 1 }),
    startSupersetEmulator({ port: 0, host: '127.0.0.1', guestTokenSecret: supersetSecret, frameAncestors: ["'self'", origin] }),
    startMetabaseEmulator({ port: 0, host: '127.0.0.1', secretKey: METABASE_SECRET, frameAncestors: [origin] }),
  ]);
  const vendors: SoakVendors = { exploUrl: explo.url, messageUrl: message.url, embedKey, supersetUrl: superset.url, supersetSecret, metabaseUrl: metabase.url };
  const answers: TokenAnswer[] = [];
  for (const protocol of protocols) {
    const routes = createEmbedRoutes({
      ...protocol.bff(vendors),
      session: { secret: SESSION_SECRET, cookie: 'soak_session' },
      allowedOrigins: [origin],
      logger: createJsonLogger({ write: () => undefined, level: 'silent' }),
    });
    app.use(`/${protocol.name}/*`, async (c, next) => {
      await next();
      answers.push({ protocol: protocol.name, path: c.req.path, status: c.res.status });
    });
    app.route(`/${protocol.name}/embed`, routes);
  }
  for (const file of ['embedded-dashboard.js', 'embedded-dashboard-superset.js', 'embedded-dashboard-metabase.js']) {
    const script = standalone(file);
    app.get(`/${file}`, (c) => c.body(script, 200, { 'content-type': 'text/javascript' }));
  }
  const element = (protocol: SoakProtocol, id = protocol.name) =>
    `<embedded-dashboard id="${id}" token-url="/${protocol.name}/embed/token" ${Object.entries(protocol.attributes(vendors))
      .map(([name, value]) => `${name}="${value}"`)
      .join(' ')}></embedded-dashboard>`;
  const later = protocols.map((protocol) => [protocol.name, element(protocol, `${protocol.name}-later`)]);
  app.get('/', (c) =>
    c.html(`<!doctype html><html><head><meta charset="utf-8"><title>Renewal soak</title>
<script>
  window.__events = [];
  window.__states = {};
  for (const type of ['dashboard-load', 'dashboard-token', 'dashboard-error'])
    addEventListener(type, (event) => __events.push({ id: event.target.id, type, detail: JSON.parse(JSON.stringify(event.detail ?? null)) }), true);
  // Every value each element's state attribute takes, in order.
  new MutationObserver((records) => {
    for (const record of records) (__states[record.target.id] ??= []).push(record.target.getAttribute('state'));
  }).observe(document, { subtree: true, attributes: true, attributeFilter: ['state'] });
  // A tile rendered later: the same protocol and scope as the one already on the page.
  window.__later = ${JSON.stringify(Object.fromEntries(later))};
  window.addLater = (name) => document.body.insertAdjacentHTML('beforeend', __later[name]);
</script>
<script type="module">
  // One module graph: every entry registers its protocols before any element's first update.
  import '/embedded-dashboard.js';
  import '/embedded-dashboard-superset.js';
  import '/embedded-dashboard-metabase.js';
</script></head><body>
${protocols.map((protocol) => element(protocol)).join('\n')}
</body></html>`),
  );
  return {
    url: `${origin}/`,
    answers,
    async session(customer) {
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({ org_id: customer, org_name: customer, sub: `user-${customer}`, embed_properties: { region: 'EU' }, exp: now + 1800 })
        .setProtectedHeader({ alg: 'HS256' })
        .setIssuedAt(now)
        .sign(new TextEncoder().encode(SESSION_SECRET));
    },
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        if ('closeAllConnections' in server) server.closeAllConnections();
      });
      await Promise.all([explo.close(), message.close(), superset.close(), metabase.close()]);
    },
  };
}
