/**
 * The host side of the e2e scenarios of `protocol="metabase"`: the emulator's Metabase mode on a
 * port of its own (guest embeds as Metabase serves them: the frame page, the embed API verifying
 * each token and its parameters' kinds) and a page on 127.0.0.1 with
 * `<embedded-dashboard protocol="metabase">` elements (the shipped standalone file), served by a
 * real BFF with `metabaseVendor` (dashboard 1 and question 3), configured as `EMBED_VENDOR=metabase` and its `EMBED_*` keys
 * configure it (the BFF signs the tokens with the embedding secret): one mount per customer, each reading its own session cookie, so that customers sign in side by
 * side on one page. Every token request the BFFs answered is recorded (path, status, the token's
 * `exp`).
 */
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createAdaptorServer } from '@hono/node-server';
import { Hono } from 'hono';
import { SignJWT } from 'jose';
import { createEmbedRoutes, createJsonLogger } from '@embedded-dashboard/bff';
import { metabaseVendor } from '@embedded-dashboard/bff/metabase';
import { startMetabaseEmulator, type RunningMetabaseEmulator } from '@embedded-dashboard/emulator';
import type { EngineContext, FrameRef, Tab } from '../support/browsers/index.js';
import { eventually } from './harness.js';

const STANDALONE = fileURLToPath(new URL('../../packages/element/dist/standalone/embedded-dashboard-metabase.js', import.meta.url));
const SESSION_SECRET = 'e2e-metabase-session-secret-0123456789abcdef';
/** The embedding secret the emulator holds and the BFF signs with (64 hex characters; a test's, not a real instance's). */
export const METABASE_SECRET = '0123456789abcdef'.repeat(4);
/** The frame's sandbox: Metabase's app needs scripts and its own origin (its API calls, its messages' origin). */
export const SANDBOX = 'allow-same-origin allow-scripts allow-forms allow-popups allow-downloads';

export interface MetabaseHostElement {
  /** The element's id (`el-<id>`) and, unless `mount` is given, its BFF mount (`/embed-<id>`) and session cookie. */
  id: string;
  /** The customer (`org_id`) of the mount's session. */
  customer: string;
  /** Another element's mount (its session) instead of one of its own. */
  mount?: string;
  /** The dashboard it shows, or (`chart`) the question instead. */
  dashboard?: string;
  /** A question it shows instead of a dashboard (`chart="<id>"`). */
  chart?: string;
  /** Extra attributes, as written. */
  attributes?: string;
  /** Its own mount's token lifetime, instead of the host's `ttlSeconds`. */
  ttlSeconds?: number;
}

export interface MetabaseHost {
  url: string;
  origin: string;
  emulator: RunningMetabaseEmulator;
  answers: { path: string; status: number; exp?: number; at: number }[];
  /** Sets every mount's session cookie in `context`. */
  signIn(context: EngineContext): Promise<void>;
  close(): Promise<void>;
}

/** Starts the emulator's Metabase mode and the host page with its BFF mounts, on 127.0.0.1:0. */
export async function startMetabaseHost(options: { elements: MetabaseHostElement[]; ttlSeconds: number }): Promise<MetabaseHost> {
  const answers: MetabaseHost['answers'] = [];
  const app = new Hono();
  const server = createAdaptorServer({ fetch: (request) => app.fetch(request) });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // Metabase's own `frame-ancestors`: this page's origin only (what its admin's "Authorized origins" sets).
  const emulator = await startMetabaseEmulator({ port: 0, secretKey: METABASE_SECRET, frameAncestors: [origin] });
  const script = readFileSync(STANDALONE);
  app.use('/embed-*', async (c, next) => {
    await next();
    const answer: MetabaseHost['answers'][number] = { path: c.req.path, status: c.res.status, at: Date.now() };
    if (c.res.status === 200) {
      const { token } = (await c.res.clone().json()) as { token: string };
      answer.exp = (JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { exp: number }).exp;
    }
    answers.push(answer);
  });
  const mounts = options.elements.filter((e) => !e.mount);
  for (const element of mounts) {
    // As EMBED_VENDOR=metabase, EMBED_METABASE_SECRET, EMBED_METABASE_PARAMS='{"customer_id":"{org_id}"}',
    // EMBED_DASHBOARDS=1, EMBED_METABASE_QUESTIONS=3 and EMBED_TOKEN_TTL configure it: dashboard 1
    // and question 3 only, customer_id locked to the session's org_id.
    const vendor = metabaseVendor({
      secret: METABASE_SECRET,
      params: { customer_id: '{org_id}' },
      dashboards: [1],
      questions: [3],
      ttlSeconds: element.ttlSeconds ?? options.ttlSeconds,
    });
    const routes = createEmbedRoutes({
      vendor,
      session: { secret: SESSION_SECRET, cookie: `session_${element.id}` },
      allowedOrigins: [origin],
      circuitBreaker: false,
      secrets: [METABASE_SECRET],
      logger: createJsonLogger({ write: () => undefined, level: 'silent', secrets: [METABASE_SECRET] }),
    });
    app.route(`/embed-${element.id}`, routes);
  }
  app.get('/embedded-dashboard-metabase.js', (c) => c.body(script, 200, { 'content-type': 'text/javascript' }));
  app.get('/', (c) => {
    const elements = options.elements
      .map(
        (
          e,
        ) => `<section><h2>${e.id}</h2><embedded-dashboard id="el-${e.id}" protocol="metabase" ${e.chart ? `chart="${e.chart}"` : `dashboard="${e.dashboard}"`}
  src-template="${emulator.url}/embed/dashboard/{token}" token-url="/embed-${e.mount ?? e.id}/token"
  sandbox="${SANDBOX}" ${e.attributes ?? ''}></embedded-dashboard></section>`,
      )
      .join('\n');
    return c.html(`<!doctype html><html><head><meta charset="utf-8"><title>Metabase e2e host</title>
<style>embedded-dashboard{display:block;margin:0 0 16px}</style>
<script>
  window.__events = [];
  for (const type of ['dashboard-load', 'dashboard-token', 'dashboard-error', 'dashboard-resize', 'dashboard-location'])
    addEventListener(type, (event) => __events.push({ id: event.target.id, type, at: Date.now(), detail: JSON.parse(JSON.stringify(event.detail ?? null)) }), true);
</script>
<script type="module" src="/embedded-dashboard-metabase.js"></script></head><body>
${elements}
</body></html>`);
  });
  return {
    url: `${origin}/`,
    origin,
    emulator,
    answers,
    async signIn(context) {
      const now = Math.floor(Date.now() / 1000);
      for (const element of mounts) {
        const jwt = await new SignJWT({
          org_id: element.customer,
          org_name: element.customer,
          embed_properties: {},
          sub: `user-${element.id}`,
          exp: now + 1800,
        })
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
      await emulator.close();
    },
  };
}

/** The element `id`'s `state` attribute. */
export const stateOf = (tab: Tab, id: string) => tab.evaluate((selector) => document.getElementById(selector)?.getAttribute('state') ?? null, `el-${id}`);

/** The events the page recorded of element `id`. */
export const eventsOf = async (tab: Tab, id: string, type?: string) =>
  (await tab.evaluate(() => (window as unknown as { __events: { id: string; type: string; at: number; detail: Record<string, unknown> }[] }).__events)).filter(
    (event) => event.id === `el-${id}` && (!type || event.type === type),
  );

/** The `src` of element `id`'s visible iframe (the one not loading hidden). */
export const visibleSrc = (tab: Tab, id: string) =>
  tab.evaluate(
    (selector) => document.getElementById(selector)!.shadowRoot!.querySelector<HTMLIFrameElement>('iframe:not(.pending)')?.getAttribute('src') ?? '',
    `el-${id}`,
  );

/** The rendered height of element `id`'s visible iframe, CSS px. */
export const elementFrameHeight = (tab: Tab, id: string) =>
  tab.evaluate(
    (selector) => Math.round(document.getElementById(selector)!.shadowRoot!.querySelector('iframe:not(.pending)')!.getBoundingClientRect().height),
    `el-${id}`,
  );

/** The frame showing exactly `src`. */
export const frameAt = (tab: Tab, src: string): Promise<FrameRef> => tab.frame((url) => url === new URL(src).href, 20_000);

/** What a Metabase frame shows: its state (`loading`, `loaded`, `error`), the customers of its rows, its text, its height. */
export const frameView = (frame: FrameRef) =>
  frame.evaluate(() => ({
    state: document.body.dataset.state ?? '',
    customers: [...document.querySelectorAll<HTMLElement>('tr[data-customer]')].map((row) => row.dataset.customer!),
    products: [...document.querySelectorAll<HTMLTableRowElement>('tr[data-customer]')].map((row) => row.cells[2]?.textContent ?? ''),
    text: document.body.innerText,
    height: document.body.scrollHeight,
  }));

/** `frame`'s view once its page has answered (`loaded` or `error`: never while it still loads). */
export const answeredView = (frame: FrameRef, what: string) =>
  eventually(what, async () => {
    const view = await frameView(frame);
    return view.state === 'loading' ? undefined : view;
  });

/** Element `id`'s visible frame's view once answered, its frame found again on each try (a renewal replaces it). */
export const viewOf = (tab: Tab, id: string, what: string) =>
  eventually(what, async () => {
    const src = await visibleSrc(tab, id);
    if (!src) return undefined;
    const view = await frameView(await tab.frame((url) => url === new URL(src).href, 2_000));
    return view.state === 'loading' ? undefined : view;
  });
