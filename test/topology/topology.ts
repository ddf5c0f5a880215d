/**
 * What the topology test files share: each browser engine launched to reach the named hosts
 * through its lane of the run's nginx and to trust the run's CA, the emulator CLI as the vendor at
 * https://vendor.test, a small page server for pages of the test's own, HTTPS requests from Node
 * through nginx, and what a user does on the examples' own pages.
 *
 * How each engine reaches nginx and trusts the CA, by its own mechanism (hosts.ts for the lanes):
 * - Chromium: `--host-resolver-rules="MAP app.test:443 127.0.0.1:<lane port>, …"` (the port too,
 *   so pages are at `https://app.test`, default port, `Origin` without a port, as in production);
 *   the CA by its key (`trustedCa`: `--ignore-certificate-errors-spki-list`).
 * - Firefox: `network.dns.localDomains` (those names resolve to 127.0.0.1) with
 *   `network.socket.forcePort` `443=<lane port>` (its connections to port 443 go to the lane
 *   instead); the CA in its profile's NSS database (`trustedCa`: certutil).
 * - WebKitGTK: MiniBrowser has no resolver setting; it asks its HTTP proxy (`--proxy`) to
 *   `CONNECT app.test:443` by name, and the run's proxy (connect-proxy.ts) tunnels that to the
 *   lane; loopback addresses bypass the proxy (`--ignore-host`: WebKit would proxy them too). It
 *   cannot trust a CA for one launch: GnuTLS reads only the system's CA file, compiled in
 *   (/etc/ssl/certs/ca-certificates.crt: no SSL_CERT_FILE, and glib-networking's only variable,
 *   G_TLS_GNUTLS_PRIORITY, sets ciphers), shared by the whole machine. So it is given, per named
 *   host, the one server certificate nginx presents there (`webkitCertificates`: WebKitWebDriver's
 *   `certificates` capability, webkit_web_context_allow_tls_certificate_for_host): a pin, not a
 *   CA, and any other certificate is refused as in the other two; the chain to the CA is
 *   checked by Chromium and Firefox only.
 * A host with a certificate of another CA (`UNTRUSTED_HOST`) shows it: every engine refuses it
 * (demo.test.ts).
 */
import { request as httpsRequest } from 'node:https';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { UserGroupClient } from '@embedded-dashboard/client';
import { afterAll, afterEach, beforeAll, describe } from 'vitest';
import { eventually, type EngineRun } from '../e2e/harness.js';
import { engines, type Engine, type EngineContext, type EngineName, type LaunchOptions, type Tab } from '../support/browsers/index.js';
import { certutilTool } from '../support/tools.js';
import { startServer, type ServerProcess } from '../packaging/consumer.js';
import { HOSTS, UNTRUSTED_HOST, type HostName, type Lane, type TopologyInfo } from './hosts.js';

export { HOSTS, publicOrigin, UNTRUSTED_HOST, type HostName, type Lane, type TopologyInfo } from './hosts.js';

/** How `engine` reaches the topology and trusts its CA, plus `extra` (third-party cookies). */
export function topologyLaunch(engine: EngineName, topology: TopologyInfo, extra: Pick<LaunchOptions, 'thirdPartyCookies'> = {}): LaunchOptions {
  const hosts = [...Object.values(HOSTS), UNTRUSTED_HOST];
  const lane = topology.lanes[engine];
  if (engine === 'chromium') {
    return {
      ...extra,
      trustedCa: topology.caPath,
      chromiumArgs: [`--host-resolver-rules=${hosts.map((host) => `MAP ${host}:443 127.0.0.1:${lane.port}`).join(', ')}`],
    };
  }
  if (engine === 'firefox') {
    return {
      ...extra,
      trustedCa: topology.caPath,
      firefoxPrefs: { 'network.dns.localDomains': hosts.join(','), 'network.socket.forcePort': `443=${lane.port}` },
    };
  }
  // Loopback stays direct (the apps' own http://127.0.0.1:PORT): WebKit sends everything to its proxy unless told.
  const direct = ['localhost', '127.0.0.1', '::1'].map((host) => `--ignore-host=${host}`);
  const webkitCertificates = Object.values(HOSTS).map((host) => ({ host, certificateFile: topology.serverCertificatePath }));
  return { ...extra, webkitCertificates, webkitArgs: [`--proxy=http://127.0.0.1:${topology.proxyPort}`, ...direct] };
}

/** An engine of this run, with its lane of the topology. */
export interface TopologyEngine extends Engine {
  lane: Lane;
}

/**
 * One block of scenarios per engine, each on its lane (so with servers of its own at the same
 * public names): the engines side by side, the scenarios of one engine one after another, as
 * test/e2e does. `available` is false when the engine or the topology is missing (skipped
 * loudly; CI fails instead: tools.ts), and for Firefox without certutil to trust the CA.
 */
export function describeTopology(topology: TopologyInfo, title: string, body: (engine: TopologyEngine) => void): void {
  const list: TopologyEngine[] = engines().map((engine) => ({
    ...engine,
    available: engine.available && topology.available && (engine.name !== 'firefox' || certutilTool().available),
    lane: topology.lanes[engine.name],
  }));
  const each = process.env.E2E_SERIAL === '1' ? describe.each(list) : describe.concurrent.each(list);
  each(title, (engine) => {
    describe.sequential('', () => body(engine));
  });
}

/**
 * One browser context for all the tests of a block (call it inside the block, after `useDemo`),
 * whose tabs are closed after each test: a WebKit context is a WebKitWebDriver and a MiniBrowser
 * of its own (seconds to start), and a user of these apps keeps one browser too. Tests that need
 * a context of their own still take `run.newContext()`.
 */
export function useSharedContext(run: EngineRun, engine: Engine): () => EngineContext {
  let context: EngineContext | undefined;
  const tabs: Tab[] = [];
  beforeAll(async () => {
    if (engine.available) context = await run.browser.newContext();
  });
  afterEach(async () => {
    for (const tab of tabs.splice(0)) await tab.close();
  });
  afterAll(async () => {
    await context?.close();
  });
  return () => {
    if (!context) throw new Error(`${engine.name} is not running: use the shared context inside a test`);
    const shared = context;
    return {
      newTab: async () => {
        const tab = await shared.newTab();
        tabs.push(tab);
        return tab;
      },
      cookies: (url) => shared.cookies(url),
      setCookie: (url, name, value, attributes) => shared.setCookie(url, name, value, attributes),
      addInitScript: (fn, arg) => shared.addInitScript(fn, arg),
      // Closed after the block, not by a test.
      close: async () => undefined,
    };
  };
}

export interface HttpsAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * An HTTPS request from Node to `https://<host><path>` through `lane`'s nginx, trusting only the
 * run's CA: what a client without Fetch Metadata (curl, an old browser) sends.
 */
export function httpsThroughProxy(
  topology: TopologyInfo,
  lane: Lane,
  host: HostName,
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<HttpsAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      {
        host: '127.0.0.1',
        port: lane.port,
        servername: host,
        path,
        method: init.method ?? 'GET',
        headers: { host, ...init.headers },
        ca: readFileSync(topology.caPath),
        timeout: 10_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() }));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`https://${host}${path} did not answer within 10 s`)));
    req.on('error', reject);
    req.end(init.body);
  });
}

/**
 * The emulator CLI from the consumer project as the vendor behind https://vendor.test on `lane`:
 * admin routes on (to expire tokens), dashboards re-read every second, framing allowed from
 * `embedOrigins`.
 */
export function startVendor(consumerDir: string, lane: Lane, embedOrigins: readonly string[]): Promise<ServerProcess> {
  const args = ['--port', String(lane.upstreams[HOSTS.vendor]), '--admin', '--dashboard-refresh', '1', '--rate-limit', '0'];
  for (const origin of embedOrigins) args.push('--embed-origin', origin);
  return startServer(join(consumerDir, 'node_modules/.bin/embedded-dashboard-emulator'), args, { cwd: consumerDir, readyText: 'emulator listening on ' });
}

/** The vendor refuses `token` from now on (the emulator's admin route). */
export async function expireAtVendor(vendor: ServerProcess, token: string): Promise<void> {
  const res = await fetch(`${vendor.url}/__emulator/expire`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token }),
  });
  if (res.status !== 200) throw new Error(`the emulator did not expire the token: ${res.status} ${await res.text()}`);
}

/**
 * The token the vendor holds for the group `id` now (get-or-create, which returns an existing
 * group as stored): the token a page showing that group's dashboard runs on.
 */
export async function vendorToken(vendor: ServerProcess, id: string, name: string): Promise<string> {
  const client = new UserGroupClient({ baseUrl: vendor.url, apiToken: 'dev-customer-key' });
  try {
    const answer = await client.getOrCreateUserGroup({ user_group_id: id, name, properties: {}, mapping: {} });
    if (answer.new_user_group) throw new Error(`the vendor had no group ${id} yet`);
    return answer.user_group.token;
  } finally {
    client.close();
  }
}

/** A plain HTTP server on 127.0.0.1:`port` answering with `handler` (pages of the test's own, behind nginx). */
export function startPageServer(
  port: number,
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<{ server: Server; close(): Promise<void> }> {
  const server = createServer(handler);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () =>
      resolve({
        server,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      }),
    );
  });
}

/** Signs in through an example's own form at `base` (as a user types and clicks), and waits for its dashboard page. */
export async function signInToExample(tab: Tab, base: string, user: { email: string; password: string }): Promise<void> {
  await tab.goto(`${base}/login`);
  await tab.evaluate(({ email, password }) => {
    document.querySelector<HTMLInputElement>('input[name=email]')!.value = email;
    document.querySelector<HTMLInputElement>('input[name=password]')!.value = password;
  }, user);
  await tab.click('button');
  await eventually(`${base}/dashboard after sign-in`, async () => (await tab.url()) === `${base}/dashboard`);
}

/** A token request the page sent, as `installTokenRecorder` saw it. */
export interface SeenTokenRequest {
  /** The URL without its query: `https://embed.test/embed/token/rotate`. */
  url: string;
  status: number;
  /** The token of a 200 answer. */
  token?: string;
}

declare global {
  interface Window {
    __tokenRequests?: SeenTokenRequest[];
  }
}

/**
 * Runs in the page (self-contained, so a page of the test's own can also carry it inline, before
 * its other scripts): from then on, every `…/embed/token…` request the page's scripts send with
 * `fetch` (the element's, or a `fetchToken`'s) goes to `window.__tokenRequests`, with its answer's
 * status and token. A wrapper around the page's `fetch`, so the same in every engine (WebKit's
 * driver sees no network).
 */
export function installTokenRecorder(): void {
  const seen: SeenTokenRequest[] = (window.__tokenRequests = []);
  const original = window.fetch;
  window.fetch = async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input), location.href);
    const response = await original(input, init);
    if (url.pathname.startsWith('/embed/token')) {
      const entry: SeenTokenRequest = { url: url.origin + url.pathname, status: response.status };
      seen.push(entry);
      if (response.ok)
        void response
          .clone()
          .json()
          .then(
            (body: { token?: string }) => (entry.token = body.token),
            () => undefined,
          );
    }
    return response;
  };
}

/** The token requests `installTokenRecorder` saw in `tab` so far. */
export const recordedTokenRequests = (tab: Tab): Promise<SeenTokenRequest[]> => tab.evaluate(() => window.__tokenRequests ?? []);

/** Installs the recorder in `tab`'s current page now (the requests it sent before are not seen); returns the reader. */
export async function recordTokenRequests(tab: Tab): Promise<() => Promise<SeenTokenRequest[]>> {
  await tab.evaluate(installTokenRecorder);
  return () => recordedTokenRequests(tab);
}
