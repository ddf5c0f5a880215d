import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { UserGroupClient } from '@embedded-dashboard/client';
import {
  createBffApp,
  createBffNodeListener,
  INITIAL_TOKEN_HEADERS,
  renderDashboardFrame,
  renderElementScript,
  renderInitialToken,
  type BffAppOptions,
} from '@embedded-dashboard/bff';
import { BENCH_API_KEY, BENCH_EMBED_SECRET } from '../lib/emulator.js';
import { SESSION } from '../lib/session.js';
import { aheadTokenJson, parseFeatures, variantPage, type PageFeature, type VariantInputs } from './variant-page.js';

/** What the page server's process prints, followed by its URL, once it listens. */
export const PAGES_LISTENING_PREFIX = 'pages listening on ';

/** The sample dashboard both pages show. */
export const DASHBOARD_ID = 'sales-overview';

export interface PageServerOptions {
  /** The emulator's base URL (the dashboard host). */
  emulatorUrl: string;
  /** The element's standalone bundle (Lit and every frame protocol inside), served as `/element.js`. */
  elementScript: string;
  /** The session cookie the BFF reads (the bench's session JWT, as `SESSION` signs it). */
  cookie: string;
  /** The port to listen on (127.0.0.1): the BFF must know this server's origin before it starts. */
  port: number;
}

export interface PageServer {
  url: string;
  close(): Promise<void>;
}

/** Sums the page's layout shifts (Chromium's `layout-shift` entries, none after input) into `window.__shift`. */
const LAYOUT_SHIFT_PROBE = `<script>window.__shift=0;new PerformanceObserver((l)=>{for(const e of l.getEntries())if(!e.hadRecentInput)window.__shift+=e.value}).observe({type:'layout-shift',buffered:true})</script>`;
/** The host page's content below the embed, which moves when the embed changes height. */
/**
 * The element README's rule ("Sizing: no jump") reserving the element's space before its script has
 * defined it: without it the first view also shifts once the element takes its min-height.
 */
export const UNDEFINED_ELEMENT_CSS = 'embedded-dashboard:not(:defined) { display: block; min-height: 400px; }';
/**
 * The element README's `blocking="render"` on the element's script ("Sizing: no jump"): the first
 * paint waits for the element to be defined, so a repeat view reserves its remembered height from
 * that paint even on a busy machine (Chromium; without it, 11b shifted in some repeat views under load).
 */
export const RENDER_BLOCKING = ' blocking="render"';

const CONTENT_BELOW = '<main id="below"><h2>Below the dashboard</h2><p>The host page goes on here.</p><div style="height:800px;background:#eee"></div></main>';

/** The console message both pages log, followed by the time, when the dashboard is loaded. */
export const LOADED_MESSAGE = 'bench:loaded';

/*
 * Both pages record `performance.now()` (ms since navigation start) when the dashboard reports
 * itself loaded, in `window.__bench.loadAt`, and log it to the console, where the bench reads it
 * in Chromium without running anything in the page. The same line resolves the promise
 * `window.__bench.line`, which a driver without console events (WebKit's classic WebDriver) awaits
 * in one script call made after the page's `load` (bench/browser/engines.ts). They differ only in
 * how the iframe gets its token. The frame's resource entry is found by its initiator (`iframe`)
 * or, where an engine does not list it so, by its URL (`/iframe/`, the dashboard host's path).
 */
const HEAD = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>bench</title>
<style>body{margin:0;font:16px sans-serif}embedded-dashboard,iframe{display:block;width:960px;border:0}iframe{height:400px}</style>
<script>window.__bench={};window.__bench.line=new Promise((r)=>{window.__bench.said=r});customElements.whenDefined('embedded-dashboard').then(()=>{window.__bench.defined=performance.now()});
const loaded=(at)=>{if(window.__bench.loadAt!==undefined)return;const b=window.__bench;b.loadAt=at??performance.now();
const r=performance.getEntriesByType('resource'),f=(p)=>r.find(p),e=f((x)=>x.name.endsWith('/element.js')),t=f((x)=>x.name.includes('/embed/token')),i=f((x)=>x.initiatorType==='iframe')||f((x)=>new URL(x.name).pathname.startsWith('/iframe/'));
const m={defined:b.defined,ready:b.ready,elementEnd:e&&e.responseEnd,tokenStart:t&&t.startTime,tokenEnd:t&&t.responseEnd,frameStart:i&&i.startTime,frameEnd:i&&i.responseEnd};
console.log('${LOADED_MESSAGE}',b.loadAt,JSON.stringify(m));b.said('${LOADED_MESSAGE} '+b.loadAt+' '+JSON.stringify(m))}</script>`;

/**
 * The integrator's page, head and body apart so the server can send the head (and the browser
 * start fetching the element's script and connecting to the dashboard host) before it has the
 * first token. The element asks the BFF (same origin, session cookie) for the token, or finds the
 * first one in the JSON script child the server rendered (`renderInitialToken`).
 */
function oursHead(emulatorUrl: string, script: string): string {
  return `${HEAD}
<link rel="preconnect" href="${new URL(emulatorUrl).origin}">
<script>addEventListener('dashboard-load',()=>loaded())</script>
${script}</head>`;
}

/** Runs `action` (script) on the dashboard's own `dashboardLoaded` message, from its exact origin. */
const onFrameLoaded = (emulatorUrl: string, action: string): string =>
  `<script>addEventListener('message',(e)=>{if(e.origin===${JSON.stringify(new URL(emulatorUrl).origin)}&&e.data&&e.data.event==='dashboardLoaded'){${action}}})</script>`;

/**
 * The head of a page whose server-rendered frame is shown without the element (`visible`): the
 * element's script is loaded only once the dashboard says it is loaded (`renderElementScript`),
 * so its work never competes with the dashboard's load.
 * The dashboard is on screen when it says it is loaded: that moment is the page's time, as the
 * baseline's. The page logs it only once the element, started late, is ready too (its
 * `dashboard-load`, mark `ready`), so a late element that never gets there fails the run.
 */
function lateHead(emulatorUrl: string): string {
  return `${HEAD}
<link rel="preconnect" href="${new URL(emulatorUrl).origin}">
${onFrameLoaded(emulatorUrl, 'window.__bench.shownAt??=performance.now()')}
<script>addEventListener('dashboard-load',()=>{const b=window.__bench;b.ready=performance.now();loaded(b.shownAt)})</script>
${renderElementScript({ src: '/element.js' })}
</head>`;
}

/** The element's start tag (with more `attributes`) and what goes inside it before the first token. */
function oursOpen(srcTemplate: string, frame = '', attributes = '', tokenUrl = '/embed/token'): string {
  return `<body>
<embedded-dashboard dashboard="${DASHBOARD_ID}" src-template="${srcTemplate}" token-url="${tokenUrl}"${attributes}>${frame}`;
}

function oursClose(firstToken: string): string {
  return `${firstToken}</embedded-dashboard>
</body></html>`;
}

/** The pieces of `/variant`'s pages (bench/browser/variant-page.ts): those every page here is made of. */
const variantInputs = (emulatorUrl: string): VariantInputs => ({
  emulatorUrl,
  dashboard: DASHBOARD_ID,
  head: HEAD,
  onFrameLoaded: (action) => onFrameLoaded(emulatorUrl, action),
});

/** The baseline: the server already put the token in the iframe URL, so no BFF round trip (the variant page with no feature of 4m's). */
function baselinePage(emulatorUrl: string, token: string): string {
  const page = variantPage(variantInputs(emulatorUrl), new Set());
  return page.head + page.body(token, '');
}

/** The markup of 4m's page, for the test that `/variant` with every feature on is that page. */
export const fourMMarkup = { lateHead, oursOpen, oursClose, baselinePage, variantInputs };

/**
 * The host app of the browser benchmarks, as an integrator's Node server is: the BFF library
 * mounted in its own process (`createBffApp` on `/embed/*`, backed by the emulator's API), so a
 * page rendering a first token asks it in-process (`renderInitialToken(req, { bff: app })`), not
 * over HTTP; a second one on `/embed-jwt/*` answers embed tokens. Pages: `/ours` (variants in the
 * query), `/ours?protocol=explo`, `/ours?protocol=explo-jwt`, `/baseline?token=…`, and
 * `/element.js` (the standalone script, every protocol inside).
 */
export async function startPageServer(options: PageServerOptions): Promise<PageServer> {
  const element = readFileSync(options.elementScript);
  const origin = `http://127.0.0.1:${options.port}`;
  const client = new UserGroupClient({ baseUrl: options.emulatorUrl, apiToken: BENCH_API_KEY });
  const bffOptions: BffAppOptions = {
    upstream: client,
    session: { secret: SESSION.secret, issuer: SESSION.issuer, audience: SESSION.audience, cookie: options.cookie },
    allowedOrigins: [origin],
    expectEnvironment: 'Customer',
    // One session loads every page of the bench: no per-session limit.
    rateLimit: false,
    // Warnings and errors to the process log (bench/.tmp/browser-pages.log); the rest is noise here.
    logger: { info: () => undefined, warn: (message, fields) => console.error(message, fields), error: (message, fields) => console.error(message, fields) },
  };
  const app = createBffApp(bffOptions);
  const bff = createBffNodeListener(app);
  // The same BFF answering embed tokens (the vendor's embed secrets): rows 5e and 5f.
  const embedTokens = createBffNodeListener(
    createBffApp({ ...bffOptions, basePath: '/embed-jwt', embedToken: { keyId: BENCH_EMBED_SECRET.id, key: BENCH_EMBED_SECRET.value } }),
  );
  const send = (res: ServerResponse, status: number, type: string, body: string | Buffer) => {
    res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
    res.end(body);
  };
  const firstToken = (req: Parameters<typeof renderInitialToken>[0]) => renderInitialToken(req, { bff: app });
  const server = createServer((req, res) => void serveRequest(req, res));
  async function serveRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname.startsWith('/embed/')) return void bff(req, res);
    if (url.pathname.startsWith('/embed-jwt/')) return void embedTokens(req, res);
    if (url.pathname === '/element.js') {
      // As a CDN serves a versioned asset: a returning visitor's browser has it (cold runs use fresh contexts).
      res.writeHead(200, { 'content-type': 'text/javascript', 'cache-control': 'public, max-age=31536000, immutable' });
      res.end(element);
      return;
    }
    const elementScript = '<script type="module" src="/element.js"></script>';
    if (url.pathname === '/ours' && url.searchParams.get('protocol') === 'explo-jwt') {
      // The vendor's embed tokens: the first in the iframe URL's path, later ones posted to the running frame.
      const template = `${options.emulatorUrl}/iframe/{token}/{environment}`;
      return send(
        res,
        200,
        'text/html',
        oursHead(options.emulatorUrl, elementScript) +
          oursOpen(template, '', ' protocol="explo-jwt" environment="production"', '/embed-jwt/token') +
          oursClose(''),
      );
    }
    if (url.pathname === '/ours' && url.searchParams.get('protocol') === 'explo') {
      // The vendor's documented embed: the token in the iframe URL's path, rotated by a frame swap.
      const template = `${options.emulatorUrl}/iframe/{dashboard}/{token}/{environment}`;
      const attributes = ' protocol="explo" environment="production"';
      if (url.searchParams.get('frame') !== 'server') {
        return send(res, 200, 'text/html', oursHead(options.emulatorUrl, elementScript) + oursOpen(template, '', attributes) + oursClose(''));
      }
      // ?frame=server: as 4m in the vendor's URL shape: the frame rendered by the server, shown, with
      // the first token in its URL; the element loaded once the dashboard says it is loaded (the
      // vendor's page says so once: the element learns it from the loader's kept messages).
      res.writeHead(200, { 'content-type': 'text/html', ...INITIAL_TOKEN_HEADERS });
      res.write(lateHead(options.emulatorUrl));
      const first = await firstToken(req);
      const token = first.response?.token;
      if (!token) console.error(`no first token for ${url.pathname}${url.search}`);
      const frame = token
        ? renderDashboardFrame({ dashboard: DASHBOARD_ID, srcTemplate: template, protocol: 'explo', environment: 'production', token, visible: true })
        : '';
      res.end(oursOpen(template, frame, attributes) + oursClose(first.html));
      return;
    }
    if (url.pathname === '/ours') {
      // ?script=inline: the element's code in the page (no row uses it; for trying where the time goes).
      const script = url.searchParams.get('script') === 'inline' ? `<script type="module">${element.toString()}</script>` : elementScript;
      // ?src=url: the token in the iframe URL's query (the iframe must wait for it); ?src=fragment:
      // in its fragment, which reaches no server (the emulator's page reads it and drops it).
      const src = url.searchParams.get('src');
      const template = `${options.emulatorUrl}/iframe/{dashboard}${src === 'url' ? '?token={token}' : src === 'fragment' ? '#token={token}' : ''}`;
      // ?frame=server: the iframe rendered by the server (renderDashboardFrame) and adopted by the
      // element; with ?late=1 rendered shown and the element's script loaded after the page's load.
      const serverFrame = url.searchParams.get('frame') === 'server';
      const late = serverFrame && url.searchParams.get('late') === '1';
      const frame = (token?: string) => (serverFrame ? renderDashboardFrame({ dashboard: DASHBOARD_ID, srcTemplate: template, token, visible: late }) : '');
      const head = late ? lateHead(options.emulatorUrl) : oursHead(options.emulatorUrl, script);
      if (url.searchParams.get('first') !== 'inline') return send(res, 200, 'text/html', head + oursOpen(template, frame()) + oursClose(''));
      // The first token rendered into the page, as an integrator's server does with the BFF's
      // helpers. What needs no token goes out first, so the browser is not idle while the server
      // asks the BFF: the head, and a server-rendered frame whose URL holds no token.
      res.writeHead(200, { 'content-type': 'text/html', ...INITIAL_TOKEN_HEADERS });
      const early = frame();
      res.write(head + (early ? oursOpen(template, early) : ''));
      const first = await firstToken(req);
      // Never silent: without a first token these pages would measure the element fetching its own.
      if (!first.response) console.error(`no first token for ${url.pathname}${url.search}`);
      res.end((early ? '' : oursOpen(template, frame(first.response?.token))) + oursClose(first.html));
      return;
    }
    if (url.pathname === '/variant') {
      // The baseline with features of 4m's page added one at a time (?with=…): see variant-page.ts.
      let features: Set<PageFeature>;
      try {
        features = parseFeatures(url.searchParams.get('with'));
      } catch (error) {
        return send(res, 400, 'text/plain', (error as Error).message);
      }
      const page = variantPage(variantInputs(options.emulatorUrl), features);
      if (!page.stream) {
        const token = url.searchParams.get('token') ?? '';
        let json: string;
        try {
          json = aheadTokenJson(token);
        } catch (error) {
          return send(res, 400, 'text/plain', (error as Error).message);
        }
        res.writeHead(200, page.headers);
        return void res.end(page.head + page.body(token, json));
      }
      res.writeHead(200, page.headers);
      res.write(page.head);
      const first = await firstToken(req);
      if (!first.response) console.error(`no first token for ${url.pathname}${url.search}`);
      res.end(page.body(first.response?.token ?? '', first.html));
      return;
    }
    if (url.pathname === '/baseline') return send(res, 200, 'text/html', baselinePage(options.emulatorUrl, url.searchParams.get('token') ?? ''));
    // Row 11: content below the embed, its layout shifts summed (layout-shift.ts). `/shift`: the
    // element fetching its token; `/shift?fixed=<token>`: a fixed-height iframe with the token in its URL.
    if (url.pathname === '/shift') {
      const fixed = url.searchParams.get('fixed');
      const embed = fixed
        ? `<body><iframe src="${options.emulatorUrl}/iframe/${DASHBOARD_ID}?token=${encodeURIComponent(fixed)}" title="dashboard"></iframe>${onFrameLoaded(options.emulatorUrl, 'loaded()')}`
        : oursOpen(`${options.emulatorUrl}/iframe/{dashboard}`) + '</embedded-dashboard>';
      const head = fixed ? HEAD : oursHead(options.emulatorUrl, elementScript.replace('></script>', `${RENDER_BLOCKING}></script>`));
      const reserve = `<style>${UNDEFINED_ELEMENT_CSS}</style>`;
      return send(res, 200, 'text/html', `${head.replace('</head>', '')}${reserve}${LAYOUT_SHIFT_PROBE}</head>${embed}${CONTENT_BELOW}</body></html>`);
    }
    return send(res, 404, 'text/plain', 'not found');
  }
  await new Promise<void>((resolve) => server.listen(options.port, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        client.close();
      }),
  };
}
