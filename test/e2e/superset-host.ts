/**
 * The host side of the e2e scenarios against the real Apache Superset (test/support/superset.ts):
 * a page on 127.0.0.1 with `<embedded-dashboard protocol="superset">` elements (the shipped
 * standalone file) and, as a control, Superset's own `@superset-ui/embedded-sdk` (its UMD bundle),
 * served by a real BFF: one `createEmbedRoutes` mount per customer with `supersetVendor`, each
 * reading its own session cookie, so that customers sign in side by side on one page.
 *
 * The BFF signs guest tokens with the server's `GUEST_TOKEN_JWT_SECRET` (no request to Superset)
 * or has Superset mint them with the service account (`mint: 'vendor'`). Every token request the
 * BFFs answered is recorded here (path, status, the guest token's `exp`).
 */
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createAdaptorServer } from '@hono/node-server';
import { Hono } from 'hono';
import { SignJWT } from 'jose';
import { inject } from 'vitest';
import { createEmbedRoutes, createJsonLogger } from '@embedded-dashboard/bff';
import { supersetVendor } from '@embedded-dashboard/bff/superset';
import { SupersetClient } from '@embedded-dashboard/client/superset';
import { startSuperset, supersetTool, type SupersetManifest, type SupersetServer } from '../support/superset.js';
import type { EngineContext, FrameRef, Tab } from '../support/browsers/index.js';
import { eventually } from './harness.js';

const STANDALONE = fileURLToPath(new URL('../../packages/element/dist/standalone/embedded-dashboard-superset.js', import.meta.url));
const SDK_BUNDLE = fileURLToPath(new URL('../../node_modules/@superset-ui/embedded-sdk/bundle/index.js', import.meta.url));
const SESSION_SECRET = 'e2e-superset-session-secret-0123456789abcdef';
/** What Superset's SDK needs, and the element documents, for the frame. */
export const SANDBOX = 'allow-same-origin allow-scripts allow-presentation allow-downloads allow-forms allow-popups';
/** The hostile claim value of issue 37: it must never widen what a customer sees. */
export const HOSTILE_CUSTOMER = "x' OR '1'='1";

/**
 * The run's Superset: the one .ci/run started (`EMBED_SUPERSET_MANIFEST`, provided by
 * ./superset-global-setup.ts), else one started for this file (`own`), else none (skipped
 * loudly locally; in CI `supersetTool()` throws).
 */
export async function runSuperset(
  own: { guestTokenSeconds?: number; always?: boolean } = {},
): Promise<SupersetServer | { manifest: SupersetManifest; dispose(): Promise<void> } | undefined> {
  const provided = inject('supersetE2e');
  if (provided && !own.always) return { manifest: provided, dispose: async () => undefined };
  const tool = supersetTool();
  if (!tool.available) return undefined;
  return startSuperset(tool.python, own.guestTokenSeconds ? { guestTokenSeconds: own.guestTokenSeconds } : {});
}

/** Which rows a customer owns (its products are unique across customers). */
export const productsOf = (manifest: SupersetManifest, customer: string) =>
  manifest.rows.filter((row) => row.customer_id === customer).map((row) => row.product);
export const allProducts = (manifest: SupersetManifest) => manifest.rows.map((row) => row.product);

export interface TokenAnswer {
  path: string;
  status: number;
  /** The guest token's own `exp` (epoch s) of a 200. */
  exp?: number;
  at: number;
}

export interface HostElement {
  /** The mount (`/embed-<id>`), its session's cookie and the customer (`org_id`) in it. */
  id: string;
  customer: string;
  dashboard: 'sales' | 'restricted';
  /** Extra attributes, as written. */
  attributes?: string;
  /** `false`: the BFF mount and session only, no element (the SDK's route). */
  element?: false;
  /** With `mint: 'local'`: this mount's guest tokens' lifetime, instead of the host's `ttlSeconds`. */
  ttlSeconds?: number;
}

export interface HostOptions {
  elements: HostElement[];
  /** Superset's own SDK on the same page, with the first element's token route. */
  sdk?: boolean;
  /** Guest tokens minted by Superset (the service account) instead of signed by the BFF. */
  mint?: 'local' | 'vendor';
  /** With `mint: 'local'`: the guest tokens' lifetime. Default 300. */
  ttlSeconds?: number;
}

export interface SupersetHost {
  url: string;
  origin: string;
  answers: TokenAnswer[];
  /** Sets every element's session cookie in `context`. */
  signIn(context: EngineContext): Promise<void>;
  close(): Promise<void>;
}

/** Starts the host page and its BFF mounts on 127.0.0.1:0. */
export async function startSupersetHost(manifest: SupersetManifest, options: HostOptions): Promise<SupersetHost> {
  const answers: TokenAnswer[] = [];
  const app = new Hono();
  // The host listens first: the BFF's origin guard must know its origin.
  const server = createAdaptorServer({ fetch: (request) => app.fetch(request) });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const script = readFileSync(STANDALONE);
  const sdk = readFileSync(SDK_BUNDLE);
  const dashboards = [manifest.dashboards.sales.uuid, manifest.dashboards.restricted.uuid];
  app.use('/embed-*', async (c, next) => {
    await next();
    const answer: TokenAnswer = { path: c.req.path, status: c.res.status, at: Date.now() };
    if (c.res.status === 200) {
      const { token } = (await c.res.clone().json()) as { token: string };
      answer.exp = (JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { exp: number }).exp;
    }
    answers.push(answer);
  });
  for (const element of options.elements) {
    let mint: Parameters<typeof supersetVendor>[0];
    if (options.mint === 'vendor') {
      const client = new SupersetClient({
        baseUrl: manifest.url,
        username: manifest.serviceAccount.username,
        password: manifest.serviceAccount.password,
        timeoutMs: 5_000,
      });
      mint = { dashboards, rls: 'customer_id = {org_id}', client };
    } else {
      mint = {
        dashboards,
        rls: 'customer_id = {org_id}',
        guestTokenSecret: manifest.guestToken.secret,
        audience: manifest.guestToken.audience,
        ttlSeconds: element.ttlSeconds ?? options.ttlSeconds ?? 300,
      };
    }
    const routes = createEmbedRoutes({
      vendor: supersetVendor(mint),
      session: { secret: SESSION_SECRET, cookie: `session_${element.id}` },
      allowedOrigins: [origin],
      circuitBreaker: false,
      logger: createJsonLogger({ write: () => undefined, level: 'silent' }),
    });
    app.route(`/embed-${element.id}`, routes);
  }
  app.get('/embedded-dashboard-superset.js', (c) => c.body(script, 200, { 'content-type': 'text/javascript' }));
  app.get('/superset-embedded-sdk.js', (c) => c.body(sdk, 200, { 'content-type': 'text/javascript' }));
  app.get('/', (c) => {
    const elements = options.elements
      .filter((e) => e.element !== false)
      .map(
        (e) => `<section><h2>${e.id}</h2><embedded-dashboard id="el-${e.id}" protocol="superset" dashboard="${manifest.dashboards[e.dashboard].uuid}"
  src-template="${manifest.url}/embedded/{dashboard}" token-url="/embed-${e.id}/token" hide-title
  sandbox="${SANDBOX}" allow="fullscreen; clipboard-write" url-params="e2e=${e.id}" ${e.attributes ?? ''}></embedded-dashboard></section>`,
      )
      .join('\n');
    const control = options.sdk
      ? `<section><h2>sdk</h2><div id="sdk"></div></section>
<script src="/superset-embedded-sdk.js"></script>
<script>
  window.__sdkTokens = 0;
  supersetEmbeddedSdk.embedDashboard({
    id: ${JSON.stringify(manifest.dashboards.sales.uuid)},
    supersetDomain: ${JSON.stringify(manifest.url)},
    mountPoint: document.getElementById('sdk'),
    dashboardUiConfig: { hideTitle: true, urlParams: { e2e: 'sdk' } },
    fetchGuestToken: async () => {
      const answer = await fetch('/embed-${options.elements[0]!.id}/token', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ dashboard: ${JSON.stringify(manifest.dashboards.sales.uuid)} }) });
      window.__sdkTokens += 1;
      return (await answer.json()).token;
    },
  }).then((embedded) => (window.__sdk = embedded));
</script>`
      : '';
    return c.html(`<!doctype html><html><head><meta charset="utf-8"><title>Superset e2e host</title>
<script>
  window.__events = [];
  for (const type of ['dashboard-load', 'dashboard-token', 'dashboard-error'])
    addEventListener(type, (event) => __events.push({ id: event.target.id, type, detail: JSON.parse(JSON.stringify(event.detail ?? null)) }), true);
</script>
<script type="module" src="/embedded-dashboard-superset.js"></script></head><body>
${elements}
${control}
</body></html>`);
  });
  return {
    url: `${origin}/`,
    origin,
    answers,
    async signIn(context) {
      const now = Math.floor(Date.now() / 1000);
      for (const element of options.elements) {
        const jwt = await new SignJWT({ org_id: element.customer, org_name: element.customer, sub: `user-${element.id}`, given_name: 'Test', exp: now + 1800 })
          .setProtectedHeader({ alg: 'HS256' })
          .setIssuedAt(now)
          .sign(new TextEncoder().encode(SESSION_SECRET));
        await context.setCookie(origin, `session_${element.id}`, jwt);
      }
    },
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        if ('closeAllConnections' in server) server.closeAllConnections();
      });
    },
  };
}

/** The element `id`'s `state` attribute. */
export const stateOf = (tab: Tab, id: string) => tab.evaluate((selector) => document.getElementById(selector)?.getAttribute('state') ?? null, `el-${id}`);

/** The frame of element `id` (or `sdk`: the SDK's), by the `e2e` URL parameter each was given. */
export const frameOf = (tab: Tab, id: string, timeoutMs = 20_000): Promise<FrameRef> =>
  tab.frame((url) => new URL(url).searchParams.get('e2e') === id, timeoutMs);

/** The element events the page recorded (`dashboard-load`, `dashboard-token`, `dashboard-error`) of element `id`. */
export const eventsOf = async (tab: Tab, id: string, type?: string) =>
  (await tab.evaluate(() => (window as unknown as { __events: { id: string; type: string; detail: Record<string, unknown> }[] }).__events)).filter(
    (event) => event.id === `el-${id}` && (!type || event.type === type),
  );

/** The visible text of a frame's document. */
export const frameText = (frame: FrameRef) => frame.evaluate(() => document.body?.innerText ?? '');

/** Waits until the frame's dashboard has rendered a chart's table with at least one row, or says "No results". */
export async function waitForTable(frame: FrameRef, what: string): Promise<string> {
  try {
    return await eventually(
      `${what}: the dashboard's tables rendered`,
      async () => {
        const done = await frame.evaluate(() => {
          const holders = document.querySelectorAll('.dashboard-component-chart-holder');
          if (holders.length === 0) return false;
          // Every chart finished: a table with rows, or Superset's empty state.
          return [...holders].every((holder) => holder.querySelector('table tbody tr') || /No results/i.test(holder.textContent ?? ''));
        });
        return done ? frameText(frame) : undefined;
      },
      45_000,
      250,
    );
  } catch (error) {
    throw new Error(`${(error as Error).message}; the frame shows: ${JSON.stringify((await frameText(frame).catch(String)).slice(0, 500))}`, { cause: error });
  }
}

/** The rendered height of the iframe of element `id`, CSS px. */
export const elementFrameHeight = (tab: Tab, id: string) =>
  tab.evaluate((selector) => Math.round(document.getElementById(selector)!.shadowRoot!.querySelector('iframe')!.getBoundingClientRect().height), `el-${id}`);

/** Marks element `id`'s iframe element and its document: `sameFrame` is true as long as neither was replaced. */
export async function markFrame(tab: Tab, frame: FrameRef, id: string): Promise<() => Promise<boolean>> {
  const mark = `${Date.now()}-${Math.random()}`;
  await tab.evaluate(
    ([selector, value]) => ((document.getElementById(selector)!.shadowRoot!.querySelector('iframe') as HTMLIFrameElement & { __mark?: string }).__mark = value),
    [`el-${id}`, mark] as const,
  );
  await frame.evaluate((value) => ((window as unknown as { __mark?: string }).__mark = value), mark);
  return async () => {
    const element = await tab.evaluate(
      (selector) =>
        (document.getElementById(selector)!.shadowRoot!.querySelectorAll('iframe') as NodeListOf<HTMLIFrameElement & { __mark?: string }>)[0]?.__mark ?? '',
      `el-${id}`,
    );
    const inside = await frame.evaluate(() => (window as unknown as { __mark?: string }).__mark ?? '');
    return element === mark && inside === mark;
  };
}
