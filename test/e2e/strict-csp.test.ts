/**
 * The element on a locked-down host page (issue 32), in every engine: one scenario, run for each
 * policy x protocol, on one host server and one signed-in tab per engine. Each case is one page
 * load and one rotation, and checks in it: the first load, the frame taking the dashboard's
 * reported height (CSSOM, not a `style` attribute), variables, rotation and the error state; it
 * fails on any `securitypolicyviolation` event in the host page.
 *
 * Policies (the host page's Content-Security-Policy header):
 * - `strict`: `default-src 'none'; script-src 'self'; …; style-src 'self'` with the standalone
 *   script from the page's origin;
 * - `nonce`: `script-src 'nonce-…' 'strict-dynamic'` with the BFF's page helpers (the frame
 *   rendered by the server, the first token, the deferred loader), and Trusted Types enforced
 *   (Chromium and WebKit enforce them; Firefox ESR has no Trusted Types, so it runs the nonce
 *   policy alone);
 * - `trusted-types`: `strict` plus `require-trusted-types-for 'script'; trusted-types embedded-dashboard`.
 * The BFF is same-origin: the host server forwards `/embed*` to the demo's BFF.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderDashboardFrame, renderElementScript, renderInitialToken } from '@embedded-dashboard/bff';
import { SESSION_COOKIE, signSession } from '../../demo/server/session.js';
import type { RunningDemo } from '../../demo/server/start-demo.js';
import { engines, type EngineBrowser, type EngineContext } from '../support/browsers/index.js';
import { eventually, iframeHeight, openApp, openEngineBrowser, postFromDashboard, startTestDemo, type AppTab } from './harness.js';
import { PAGE_PROBE_SOURCE } from './page-probe.js';

const ELEMENT_SCRIPT = fileURLToPath(new URL('../../packages/element/dist/standalone/embedded-dashboard.js', import.meta.url));
/** The bundle's subresource integrity as the build ships it beside the bundle. */
const INTEGRITY = (
  JSON.parse(readFileSync(new URL('../../packages/element/dist/standalone/integrity.json', import.meta.url), 'utf8')) as Record<string, string>
)['embedded-dashboard.js']!;
const DASHBOARD = 'sales-overview';
const POLICIES = ['strict', 'nonce', 'trusted-types'] as const;
const PROTOCOLS = ['message', 'explo', 'explo-jwt'] as const;
type Policy = (typeof POLICIES)[number];
type Protocol = (typeof PROTOCOLS)[number];

/**
 * Records every CSP violation of the host page (the element's shadow root included: the event is
 * composed), and the scripts that failed to load (`__scriptErrors`: an integrity mismatch).
 */
function recordViolations(): void {
  const failed: string[] = ((window as unknown as { __scriptErrors: string[] }).__scriptErrors = []);
  addEventListener('error', (event) => event.target instanceof HTMLScriptElement && failed.push(new URL(event.target.src).pathname), true);
  const seen: string[] = ((window as unknown as { __violations: string[] }).__violations = []);
  addEventListener(
    'securitypolicyviolation',
    (event) => seen.push(`${event.effectiveDirective} blocked ${event.blockedURI || 'inline'} (${event.sourceFile}:${event.lineNumber})`),
    true,
  );
}
const PROBE = `${PAGE_PROBE_SOURCE};(${recordViolations.toString()})()`;

const TRUSTED_TYPES = "require-trusted-types-for 'script'; trusted-types embedded-dashboard";

/** The host page's policy: nothing inline, the vendor the only frame, the BFF (same origin) the only connection. */
export function hostPolicy(policy: Policy, vendor: string, nonce: string): string {
  const scripts = policy === 'nonce' ? `'nonce-${nonce}' 'strict-dynamic'` : "'self'";
  const base = `default-src 'none'; script-src ${scripts}; connect-src 'self'; frame-src ${vendor}; style-src 'self'; img-src 'self'`;
  return policy === 'strict' ? base : `${base}; ${TRUSTED_TYPES}`;
}

/** The element README's plain-HTML page and its module file, as written (the dashboard host swapped for the emulator). */
function readmePage(vendor: string): { html: string; module: string } {
  const readme = readFileSync(new URL('../../packages/element/README.md', import.meta.url), 'utf8');
  const section = readme.slice(readme.indexOf('## Plain HTML'));
  const block = (language: string) => new RegExp(`\`\`\`${language}(?: \\w+)?\n([\\s\\S]*?)\`\`\``).exec(section)![1]!;
  return { html: block('html').replaceAll('https://dashboards.example.com', vendor), module: block('js') };
}

/** A confined frame: the only sandbox tokens the dashboard needs, and a permission besides the default `fullscreen`. */
const CONFINED = { sandbox: 'allow-scripts allow-same-origin', allow: 'fullscreen; clipboard-write' };

/** The element's attributes for `protocol`, as an integrator writes them. */
function elementAttributes(protocol: Protocol, vendor: string, firstTokenInFragment: boolean): Record<string, string> {
  if (protocol === 'explo') return { ...CONFINED, protocol, environment: 'production', 'src-template': `${vendor}/iframe/{dashboard}/{token}/{environment}` };
  if (protocol === 'explo-jwt')
    return { ...CONFINED, protocol, environment: 'production', 'src-template': `${vendor}/iframe/{token}/{environment}`, 'token-url': '/embed-jwt/token' };
  return { ...CONFINED, 'src-template': `${vendor}/iframe/{dashboard}${firstTokenInFragment ? '#token={token}' : ''}` };
}

/** The sandbox, allow and referrer policy of each of the element's frames (its own and an adopted one). */
const frameConfinement = (app: AppTab) =>
  app.tab.evaluate(() => {
    const element = document.querySelector('embedded-dashboard')!;
    return [...element.shadowRoot!.querySelectorAll('iframe'), ...element.querySelectorAll('iframe')].map((frame) => ({
      sandbox: frame.getAttribute('sandbox'),
      allow: frame.getAttribute('allow'),
      referrerpolicy: frame.getAttribute('referrerpolicy'),
    }));
  });
const CONFINEMENT = { ...CONFINED, referrerpolicy: 'strict-origin' };

const attributeText = (attributes: Record<string, string>) =>
  Object.entries(attributes)
    .map(([name, value]) => ` ${name}="${value}"`)
    .join('');

interface HostServer {
  url: string;
  /** Answer the page's token requests 403 from now on (the error state), or forward them again. */
  refuseTokens: boolean;
  close(): Promise<void>;
}

/**
 * The integrator's server: the test pages at `/page/<policy>/<protocol>`, the probe and the
 * standalone script as files of its own origin, and `/embed*` forwarded to the demo's BFF.
 */
async function startHost(demo: () => RunningDemo): Promise<HostServer> {
  const element = readFileSync(ELEMENT_SCRIPT);
  const state = { refuseTokens: false };
  const forward = async (req: IncomingMessage, res: ServerResponse) => {
    if (state.refuseTokens) {
      const body = JSON.stringify({ error: { code: 'forbidden', message: 'refused by the test', retryable: false } });
      return void res.writeHead(403, { 'content-type': 'application/json' }).end(body);
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers: Record<string, string> = {};
    for (const name of ['content-type', 'cookie', 'origin', 'authorization', 'x-requested-with', 'sec-fetch-site']) {
      const value = req.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    const answer = await fetch(new URL(req.url!, demo().url), { method: req.method, headers, body: chunks.length ? Buffer.concat(chunks) : undefined });
    res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' }).end(Buffer.from(await answer.arrayBuffer()));
  };
  const page = async (req: IncomingMessage, res: ServerResponse, policy: Policy, protocol: Protocol) => {
    const vendor = demo().emulatorUrl;
    const nonce = randomBytes(16).toString('base64');
    let head = `<script src="/probe.js"></script>`;
    let inside = '';
    const ssr = policy === 'nonce';
    if (!ssr) head += `<script type="module" src="/element.js"></script>`;
    else {
      head = `<script nonce="${nonce}" src="/probe.js"></script>`;
      if (protocol === 'explo-jwt') head += renderElementScript({ src: '/element.js', after: 'now', nonce });
      else {
        // The frame rendered shown with its first token in the URL, the element loaded once the dashboard has loaded.
        // Waits on the BFF as long as a test may (its 1 s default renders no token on a loaded machine).
        const first = await renderInitialToken(req, { bff: demo().url, timeoutMs: 30_000 });
        if (!first.response) return void res.writeHead(500, { 'content-type': 'text/plain' }).end('the BFF gave no first token');
        const { 'src-template': srcTemplate } = elementAttributes(protocol, vendor, true);
        inside =
          renderDashboardFrame({
            dashboard: DASHBOARD,
            srcTemplate: srcTemplate!,
            protocol,
            environment: 'production',
            token: first.response.token,
            visible: true,
            ...CONFINED,
          }) + first.html;
        head += renderElementScript({ src: '/element.js', nonce, integrity: INTEGRITY });
      }
    }
    res
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'content-security-policy': hostPolicy(policy, vendor, nonce) })
      .end(
        `<!doctype html><html><head><title>${policy} ${protocol}</title>${head}</head><body>` +
          `<embedded-dashboard dashboard="${DASHBOARD}"${attributeText(elementAttributes(protocol, vendor, ssr))}>${inside}</embedded-dashboard></body></html>`,
      );
  };
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://host').pathname;
    const [, first, policy, protocol] = path.split('/');
    const fail = (error: unknown) => void (res.headersSent ? res.end() : res.writeHead(502).end(String(error)));
    if (first === 'embed' || first === 'embed-jwt') return void forward(req, res).catch(fail);
    if (path === '/probe.js') return void res.writeHead(200, { 'content-type': 'text/javascript' }).end(PROBE);
    if (path === '/element.js') return void res.writeHead(200, { 'content-type': 'text/javascript' }).end(element);
    if (path === '/readme' || path === '/assets/dashboard-page.js') {
      const { html, module } = readmePage(demo().emulatorUrl);
      const [type, body] = path === '/readme' ? ['text/html; charset=utf-8', html] : ['text/javascript', module];
      const headers = { 'content-type': type, 'content-security-policy': hostPolicy('strict', demo().emulatorUrl, '') };
      return void res
        .writeHead(200, headers)
        .end(path === '/readme' ? body.replace('<!doctype html>', '<!doctype html><script src="/probe.js"></script>') : body);
    }
    if (path === '/assets/embedded-dashboard.js') return void res.writeHead(200, { 'content-type': 'text/javascript' }).end(element);
    // The bundle with one byte changed on its way (a compromised CDN), and a strict page pinning it.
    if (path === '/tampered/element.js') return void res.writeHead(200, { 'content-type': 'text/javascript' }).end(Buffer.concat([element, Buffer.from(' ')]));
    if (first === 'pinned' && (policy === 'genuine' || policy === 'tampered')) {
      const src = policy === 'genuine' ? '/element.js' : '/tampered/element.js';
      return void res
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': hostPolicy('strict', demo().emulatorUrl, '') })
        .end(
          `<!doctype html><html><head><title>pinned</title><script src="/probe.js"></script>${renderElementScript({ src, after: 'now', integrity: INTEGRITY })}</head>` +
            `<body><embedded-dashboard dashboard="${DASHBOARD}" src-template="${demo().emulatorUrl}/iframe/{dashboard}"></embedded-dashboard></body></html>`,
        );
    }
    if (first === 'page' && POLICIES.includes(policy as Policy) && PROTOCOLS.includes(protocol as Protocol))
      return void page(req, res, policy as Policy, protocol as Protocol).catch(fail);
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get refuseTokens() {
      return state.refuseTokens;
    },
    set refuseTokens(on) {
      state.refuseTokens = on;
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

const SESSION_SECRET = randomBytes(32).toString('base64url');
let demo: RunningDemo;
let host: HostServer;
beforeAll(async () => {
  host = await startHost(() => demo);
  // A case rotates its token a second after it was issued: no minimum interval.
  demo = await startTestDemo({ extraOrigins: [host.url], sessionSecret: SESSION_SECRET, minRotationIntervalSeconds: 0 });
});

/** Signs `context` in as a customer of its own: the BFF limits rotations per customer and minute (12), and each case rotates. */
async function signInAsNewCustomer(context: EngineContext, id: string): Promise<void> {
  const customer = { id, name: `Customer ${id}`, user: { name: 'Pat', email: `pat@${id}.example` }, properties: { region: 'EU' } };
  await context.setCookie(host.url, SESSION_COOKIE, await signSession(customer, { secret: SESSION_SECRET, ttlSeconds: 600 }));
}

afterAll(async () => {
  await host?.close();
  await demo?.close();
});

const violations = (app: AppTab) => app.tab.evaluate(() => (window as unknown as { __violations?: string[] }).__violations ?? ['no probe']);
const frameReady = async (app: AppTab) => (await (await app.frame()).evaluate(() => document.body.dataset.state)) === 'ready';
/** The height the dashboard reported last (its `dashboard-load`, then each `dashboard-resize`). */
const reportedHeight = async (app: AppTab) => (await app.events()).findLast((e) => e.type === 'dashboard-load' || e.type === 'dashboard-resize')?.detail.height;

describe.each(engines())('in $name, a host page with a strict Content-Security-Policy', (engine) => {
  let browser: EngineBrowser;
  let context: EngineContext;
  let app: AppTab;
  beforeAll(async () => {
    if (!engine.available) return;
    browser = await openEngineBrowser(engine);
    context = await browser.newContext();
    // Signed in once for the block: every case is a page load in this tab.
    app = await openApp(context, demo, 'acme');
    await eventually('the demo app', async () => (await app.tab.url()).includes('/app'));
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
  });

  const cases = POLICIES.flatMap((policy) => PROTOCOLS.map((protocol) => ({ policy, protocol })));
  it.skipIf(!engine.available).each(cases)(
    '$policy policy, $protocol protocol, a confined frame: loads, resizes, takes variables, rotates and fails with no violation',
    async ({ policy, protocol }) => {
      host.refuseTokens = false;
      try {
        await signInAsNewCustomer(context, `csp-${engine.name}-${policy}-${protocol}`);
        await app.tab.goto(`${host.url}/page/${policy}/${protocol}`);
        // First load.
        await eventually('the element to be ready', async () => (await app.state()) === 'ready');
        await eventually('the dashboard to show data', () => frameReady(app));
        // The element's styles are adopted stylesheets (no <style> element, which style-src 'self' would block).
        expect(
          await app.tab.evaluate(() => {
            const root = document.querySelector('embedded-dashboard')!.shadowRoot!;
            return { adopted: root.adoptedStyleSheets.length, styleElements: root.querySelectorAll('style').length };
          }),
        ).toEqual({ adopted: 1, styleElements: 0 });
        // Auto-resize: the frame takes the height the dashboard reported, not the 400 px minimum.
        const reported = await eventually('a reported height', () => reportedHeight(app));
        expect(reported).not.toBe(400);
        await eventually(`the frame at the reported ${String(reported)} px`, async () => (await iframeHeight(app.tab)) === (await reportedHeight(app)));
        // The frame is confined as the element says (its only sandbox tokens are enough for the dashboard).
        expect(await frameConfinement(app)).toEqual([CONFINEMENT]);
        // Variables, host to dashboard.
        await app.tab.evaluate(() => document.querySelector('embedded-dashboard')!.setAttribute('variables', '{"region":"APAC"}'));
        await eventually('the dashboard to show the variable', async () =>
          (await app.frame()).evaluate(() => document.querySelector<HTMLInputElement>('[data-var="region"] input')?.value === 'APAC'),
        );
        // Rotation: the dashboard says its token was refused, as it does when the vendor expires it.
        const expired = protocol === 'message' ? { event: 'tokenExpired', detail: { dashboardId: DASHBOARD } } : { event: 'customerJwtExpired', detail: {} };
        // Twice on the default protocol: its report is confirmed by the token sent again (§6), and
        // the page itself would answer dashboardLoaded, since the vendor still takes the token.
        for (let i = 0; i < (protocol === 'message' ? 2 : 1); i++) await postFromDashboard(await app.frame(), host.url, expired);
        await eventually('the rotated token', async () => (await app.events('dashboard-token')).some((e) => e.detail.reason === 'rotate'));
        await eventually('the element to be ready again', async () => (await app.state()) === 'ready');
        await eventually('the dashboard to show data again', () => frameReady(app));
        await eventually('the frame at the reported height after the rotation', async () => (await iframeHeight(app.tab)) === (await reportedHeight(app)));
        // Kept across the rotation (explo swaps in a new frame).
        expect(await frameConfinement(app)).toEqual([CONFINEMENT]);
        // The error state: the BFF refuses the next rotation.
        host.refuseTokens = true;
        for (let i = 0; i < (protocol === 'message' ? 2 : 1); i++) await postFromDashboard(await app.frame(), host.url, expired);
        await eventually('the error state', async () => (await app.state()) === 'error');
        expect(
          await app.tab.evaluate(() => document.querySelector('embedded-dashboard')!.shadowRoot!.querySelector('slot[name=error] button')?.textContent),
        ).toBe('Retry');
        expect(await violations(app)).toEqual([]);
        expect(await app.tab.evaluate(() => (window as unknown as { __scriptErrors: string[] }).__scriptErrors)).toEqual([]);
      } finally {
        host.refuseTokens = false;
      }
    },
  );

  it.skipIf(!engine.available)('runs the standalone bundle pinned by its shipped integrity, and refuses it with one byte changed', async () => {
    await app.tab.goto(`${host.url}/pinned/tampered`);
    await eventually(
      'the refused script',
      async () => (await app.tab.evaluate(() => (window as unknown as { __scriptErrors: string[] }).__scriptErrors)).length > 0,
    );
    expect(await app.tab.evaluate(() => (window as unknown as { __scriptErrors: string[] }).__scriptErrors)).toEqual(['/tampered/element.js']);
    expect(await app.tab.evaluate(() => customElements.get('embedded-dashboard') === undefined)).toBe(true);
    // The same page with the genuine bytes: the element runs.
    await app.tab.goto(`${host.url}/pinned/genuine`);
    await eventually('the element to be ready', async () => (await app.state()) === 'ready');
    expect(await app.tab.evaluate(() => (window as unknown as { __scriptErrors: string[] }).__scriptErrors)).toEqual([]);
    expect(await violations(app)).toEqual([]);
  });

  it.skipIf(!engine.available)("runs the element README's plain-HTML page and module file as written under the strict policy", async () => {
    host.refuseTokens = false;
    try {
      await signInAsNewCustomer(context, `csp-${engine.name}-readme`);
      await app.tab.goto(`${host.url}/readme`);
      await eventually('the element to be ready', async () => (await app.state()) === 'ready');
      // The README's retry button (wired by its module file) after a refused rotation.
      host.refuseTokens = true;
      // Twice: the report and its confirmation (§6).
      for (let i = 0; i < 2; i++) await postFromDashboard(await app.frame(), host.url, { event: 'tokenExpired', detail: { dashboardId: DASHBOARD } });
      await eventually('the error state', async () => (await app.state()) === 'error');
      host.refuseTokens = false;
      await app.tab.click('embedded-dashboard [data-retry]');
      await eventually('ready again after the retry button', async () => (await app.state()) === 'ready');
      expect(await violations(app)).toEqual([]);
    } finally {
      host.refuseTokens = false;
    }
  });
});
