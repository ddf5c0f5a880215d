/**
 * Installed, not linked: every published package from its `npm pack` tarball, in a project
 * outside the workspace (global-setup.ts). Its manifests, both CLIs, the README's library
 * code, the standalone script in Chromium (a dashboard, its own events, and the element README's
 * single chart against the BFF CLI minting through the vendor), and type-checked consumer files.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { collectPageErrors, chromium, dashboardGroupName, openChromium, waitForDashboardReady } from './browser.js';
import { PUBLISHED_PACKAGES, REPOSITORY_ROOT, run, runOk, startServer, type ServerProcess } from './consumer.js';

const consumerDir = inject('consumerDir');
const bin = (name: string) => join(consumerDir, 'node_modules', '.bin', name);
const SESSION_SECRET = 'packaging-test-session-secret-0123456789abcdef';
/** The id of the emulator's embed secret, with which it mints the single-chart tokens. */
const EMBED_KEY_ID = 'packaging-key';

interface Manifest {
  name: string;
  version: string;
  type?: string;
  main?: string;
  types?: string;
  exports: Record<string, string | Record<string, string>>;
  engines?: { node?: string };
  sideEffects?: boolean | string[];
  files?: string[];
  bin?: Record<string, string>;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  imports?: Record<string, unknown>;
}

const installedDir = (name: string) => join(consumerDir, 'node_modules', '@embedded-dashboard', name);
const manifestOf = (name: string) => JSON.parse(readFileSync(join(installedDir(name), 'package.json'), 'utf8')) as Manifest;

async function listFiles(dir: string, prefix = ''): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) out.push(...(await listFiles(join(dir, entry.name), `${prefix}${entry.name}/`)));
    else out.push(`${prefix}${entry.name}`);
  }
  return out;
}

/** Signs a session as an integrator's login would (jose, from the consumer's own install). */
async function signSession(claims: Record<string, unknown>): Promise<string> {
  const { stdout } = await runOk(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `import { SignJWT } from 'jose';
       const claims = JSON.parse(process.env.CLAIMS);
       console.log(await new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('1h')
         .sign(new TextEncoder().encode(process.env.SECRET)));`,
    ],
    { cwd: consumerDir, env: { CLAIMS: JSON.stringify(claims), SECRET: SESSION_SECRET } },
  );
  return stdout.trim();
}

describe.each(PUBLISHED_PACKAGES)('the installed @embedded-dashboard/%s', (name) => {
  it('declares its entry points types-first, and every file they name is in the tarball', async () => {
    const manifest = manifestOf(name);
    expect(manifest.name).toBe(`@embedded-dashboard/${name}`);
    expect(manifest.type).toBe('module');
    expect(manifest.engines?.node).toBe('>=20.19');
    expect(manifest.sideEffects).toBeDefined();
    for (const [subpath, target] of Object.entries(manifest.exports)) {
      const conditions = typeof target === 'string' ? { default: target } : target;
      const keys = Object.keys(conditions);
      if (keys.includes('types')) expect(keys[0], `${subpath}: "types" must come first`).toBe('types');
      if (subpath !== './package.json' && /\.js$/.test(conditions.default ?? '')) {
        expect(keys, `${subpath} has types`).toContain('types');
      }
      for (const file of Object.values(conditions)) expect(existsSync(join(installedDir(name), file)), `${subpath} → ${file}`).toBe(true);
    }
    for (const file of Object.values(manifest.bin ?? {})) expect(existsSync(join(installedDir(name), file)), file).toBe(true);
    for (const file of [manifest.main, manifest.types].filter(Boolean)) expect(existsSync(join(installedDir(name), file!)), file).toBe(true);
  });

  it('ships no tests, test helpers or TypeScript sources, and has a README', async () => {
    const files = await listFiles(installedDir(name));
    expect(files).toContain('README.md');
    expect(files.filter((file) => /\.test(-d)?\.|(^|\/)(test|testing|test-support)\/|^src\/|(?<!\.d)\.ts$/.test(file))).toEqual([]);
  });

  it('depends on our own packages at its own version, and each dependency is one its code or types import', async () => {
    const manifest = manifestOf(name);
    const dist = join(installedDir(name), 'dist');
    const code = (await listFiles(dist))
      .filter((file) => file.endsWith('.js') || file.endsWith('.d.ts'))
      .map((file) => readFileSync(join(dist, file), 'utf8'))
      .join('\n');
    const importsOf = (source: string, specifier: string) => new RegExp(`(from |import |import\\()['"]${specifier.replace('/', '\\/')}(['"/])`).test(source);
    for (const [dependency, range] of Object.entries(manifest.dependencies ?? {})) {
      if (dependency.startsWith('@embedded-dashboard/')) expect(range, dependency).toBe(manifest.version);
      if (dependency.startsWith('@types/')) {
        // Types for a module that a dependency's own published declarations import without
        // declaring them (ioredis 6.1's errors import redis-errors): a strict consumer
        // (skipLibCheck off) needs them to type-check at all (docs/DECISIONS.md).
        const typed = dependency.slice('@types/'.length).replace(/^(.+)__/, '@$1/');
        const others = Object.keys(manifest.dependencies ?? {}).filter((other) => other !== dependency && !other.startsWith('@types/'));
        const declarations = await Promise.all(
          others.map(async (other) => {
            const dir = join(consumerDir, 'node_modules', other);
            const files = (await listFiles(dir)).filter((file) => file.endsWith('.d.ts'));
            return files.map((file) => readFileSync(join(dir, file), 'utf8')).join('\n');
          }),
        );
        expect(
          declarations.some((source) => importsOf(source, typed)),
          `${dependency} is declared but no dependency's declarations import ${typed}`,
        ).toBe(true);
        continue;
      }
      expect(importsOf(code, dependency), `${dependency} is declared but nothing in dist imports it`).toBe(true);
    }
    // And the other way round: everything dist imports is declared (else it works only by hoisting luck).
    const declared = new Set([...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.peerDependencies ?? {})]);
    const undeclared = new Set<string>();
    for (const [, specifier] of code.matchAll(/(?:from |import |import\()['"]([^'"./][^'"]*)['"]/g)) {
      // A `#name` specifier is the package's own subpath import: it must be in its `imports` map.
      if (specifier!.startsWith('#')) {
        if (!Object.hasOwn(manifest.imports ?? {}, specifier!)) undeclared.add(specifier!);
        continue;
      }
      const packageName = specifier!.startsWith('@') ? specifier!.split('/').slice(0, 2).join('/') : specifier!.split('/')[0]!;
      // A runtime's own modules (`node:crypto`, workerd's `cloudflare:workers`) are no package to declare.
      if (!/^(node|cloudflare):/.test(specifier!) && packageName !== manifest.name && !declared.has(packageName)) undeclared.add(packageName);
    }
    expect([...undeclared], 'imported by dist but not declared').toEqual([]);
  });
});

describe('the installed CLIs', () => {
  let emulator: ServerProcess | undefined;
  let bff: ServerProcess | undefined;

  beforeAll(async () => {
    emulator = await startServer(bin('embedded-dashboard-emulator'), ['--port', '0'], { cwd: consumerDir, readyText: 'emulator listening on ' });
    bff = await startServer(bin('embedded-dashboard-bff'), [], {
      cwd: consumerDir,
      readyText: 'bff listening on ',
      env: { EMBED_UPSTREAM_URL: emulator.url, EMBED_API_TOKEN: 'dev-customer-key', EMBED_SESSION_SECRET: SESSION_SECRET, EMBED_PORT: '0' },
    });
  });
  afterAll(async () => {
    await bff?.stop();
    await emulator?.stop();
  });

  it('answer a real token request: the BFF gets the group from the emulator and hands out its token', async () => {
    const session = await signSession({ org_id: 'acme', org_name: 'Acme Corp', embed_properties: { region: 'EU' } });
    const response = await fetch(`${bff!.url}/embed/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${session}` },
      body: '{}',
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { token: string; expiresAt: number; serverTime: number };
    expect(body.token).toMatch(/^\S{16,}$/);
    // The emulator's own view: that token belongs to the group the session named.
    const vendor = await fetch(`${emulator!.url}/api/user`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', authorization: 'Token dev-customer-key' },
      body: JSON.stringify({ name: 'Acme Corp', user_group_id: 'acme', properties: { region: 'EU' } }),
    });
    expect(((await vendor.json()) as { user_group: { token: string } }).user_group.token).toBe(body.token);
    expect(bff!.output.join('\n')).not.toContain('dev-customer-key');
  });

  it('the BFF refuses a request without a session with 401', async () => {
    const response = await fetch(`${bff!.url}/embed/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(response.status).toBe(401);
  });
});

describe('the README library code, run in the consumer', () => {
  it("packages/client/README.md's try-client.mjs works against the installed emulator", async () => {
    const readme = readFileSync(join(REPOSITORY_ROOT, 'packages/client/README.md'), 'utf8');
    const snippet = /save this as `try-client\.mjs`[\s\S]*?```js(?: [a-z ]+)?\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(snippet, 'the README still has the try-client.mjs example').toBeDefined();
    const emulator = await startServer(bin('embedded-dashboard-emulator'), ['--port', '0'], { cwd: consumerDir, readyText: 'emulator listening on ' });
    try {
      // The README points at the emulator's default port; this one listens on a free port.
      await writeFile(join(consumerDir, 'try-client.mjs'), snippet!.replace('http://127.0.0.1:8790', emulator.url));
      const { stdout, stderr } = await runOk(process.execPath, ['try-client.mjs'], { cwd: consumerDir });
      expect(stderr).toBe('');
      expect(stdout).toMatch(/^created acme \S+\nenvironment Customer\nnew token \S+\n$/);
    } finally {
      await emulator.stop();
    }
  });

  it('every entry point imports in Node (the element too: its import is SSR-safe)', async () => {
    const imports = {
      '@embedded-dashboard/protocol': ['parseDashboardMessage', 'isTokenResponse'],
      '@embedded-dashboard/client': ['UserGroupClient', 'UserGroupApiError'],
      '@embedded-dashboard/emulator': ['createEmulator', 'startEmulator'],
      '@embedded-dashboard/bff': ['createBffApp', 'createEmbedRoutes', 'createBffNodeListener', 'createMemoryStore'],
      '@embedded-dashboard/bff/redis': ['createRedisStore'],
      '@embedded-dashboard/bff/lambda': ['createLambdaHandler', 'parseLambdaEnvironment'],
      '@embedded-dashboard/element': ['EmbeddedDashboard', 'TokenRequestError', 'TAG_NAME'],
      '@embedded-dashboard/react': ['EmbeddedDashboard'],
    };
    const script = Object.entries(imports)
      .map(
        ([specifier, names], i) =>
          `import * as m${i} from '${specifier}';\nfor (const n of ${JSON.stringify(names)}) if (!(n in m${i})) throw new Error('${specifier} lacks ' + n);`,
      )
      .join('\n');
    const { stdout, stderr } = await runOk(process.execPath, ['--input-type=module', '-e', `${script}\nconsole.log('ok');`], { cwd: consumerDir });
    expect(stderr).toBe('');
    expect(stdout).toBe('ok\n');
  });
});

describe.skipIf(!chromium.available)('the installed standalone script, in Chromium', () => {
  let browser: Browser;
  let emulator: ServerProcess | undefined;
  let bff: ServerProcess | undefined;
  /** The BFF CLI as a single-chart embed needs it: embed tokens minted by the vendor (generate_jwt's chart_id). */
  let chartBff: ServerProcess | undefined;
  let pages: Server | undefined;
  let pageHtml = '';
  /** The element README's single-chart page (`/chart`), for a given chart. */
  let chartPageHtml: (chart: string) => string = () => '';

  beforeAll(async () => {
    // A plain HTML page of the integrator's site (its own origin), with the script copied out of node_modules.
    const script = readFileSync(join(installedDir('element'), 'dist/standalone/embedded-dashboard.js'));
    pages = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://page');
      if (url.pathname === '/assets/embedded-dashboard.js') res.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
      else if (url.pathname === '/chart') res.writeHead(200, { 'content-type': 'text/html' }).end(chartPageHtml(url.searchParams.get('chart') ?? ''));
      else res.writeHead(200, { 'content-type': 'text/html' }).end(pageHtml);
    });
    await new Promise<void>((resolve) => pages!.listen(0, '127.0.0.1', resolve));
    const pageOrigin = `http://127.0.0.1:${(pages.address() as AddressInfo).port}`;
    // An embed secret at the vendor, for the tokens it mints (generate_jwt).
    emulator = await startServer(bin('embedded-dashboard-emulator'), ['--port', '0', '--embed-secret', `${EMBED_KEY_ID}:${'k'.repeat(32)}`], {
      cwd: consumerDir,
      readyText: 'emulator listening on ',
    });
    const bffEnv = {
      EMBED_UPSTREAM_URL: emulator.url,
      EMBED_API_TOKEN: 'dev-customer-key',
      EMBED_SESSION_SECRET: SESSION_SECRET,
      EMBED_SESSION_COOKIE: 'session',
      EMBED_ALLOWED_ORIGINS: pageOrigin,
      EMBED_PORT: '0',
    };
    bff = await startServer(bin('embedded-dashboard-bff'), [], { cwd: consumerDir, readyText: 'bff listening on ', env: bffEnv });
    chartBff = await startServer(bin('embedded-dashboard-bff'), [], {
      cwd: consumerDir,
      readyText: 'bff listening on ',
      env: { ...bffEnv, EMBED_UPSTREAM_API: 'explo-customer', EMBED_JWT_KEY_ID: EMBED_KEY_ID, EMBED_JWT_MINT: 'vendor' },
    });
    // The element README's single-chart block as written, pointed at these servers (the BFF is on another port: with credentials).
    const readme = readFileSync(join(REPOSITORY_ROOT, 'packages/element/README.md'), 'utf8');
    const chartBlock = /\*\*One chart\*\*[\s\S]*?```html\n([\s\S]*?)```/.exec(readme)?.[1];
    if (!chartBlock?.includes('chart="revenue-by-month"')) throw new Error('packages/element/README.md has no single-chart HTML block after **One chart**');
    const chartElement = chartBlock
      .replaceAll('https://app.explo.co', emulator.url)
      .replace('token-url="/embed/token"', `token-url="${chartBff.url}/embed/token" with-credentials`);
    chartPageHtml = (chart) =>
      `<!doctype html><html lang="en"><head><title>One chart</title><script type="module" src="/assets/embedded-dashboard.js"></script></head>
<body>${/^[a-z-]{1,64}$/.test(chart) ? chartElement.replace('chart="revenue-by-month"', `chart="${chart}"`) : chartElement}</body></html>`;
    // The page lists the dashboard's own events (dashboard-custom-event) as its users would see them.
    pageHtml = `<!doctype html><html lang="en"><head><title>Integrator</title><script type="module" src="/assets/embedded-dashboard.js"></script>
<script type="module">
  const list = document.getElementById('events');
  document.querySelector('embedded-dashboard').addEventListener('dashboard-custom-event', (event) => {
    const item = list.appendChild(document.createElement('li'));
    item.textContent = event.detail.name + ' ' + JSON.stringify(event.detail.detail);
  });
</script></head>
<body><embedded-dashboard dashboard="sales-overview" src-template="${emulator.url}/iframe/{dashboard}"
  token-url="${bff.url}/embed/token" with-credentials variables='{"region":"US"}'></embedded-dashboard>
<ol id="events"></ol></body></html>`;
    browser = await openChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await chartBff?.stop();
    await bff?.stop();
    await emulator?.stop();
    await new Promise((resolve) => pages?.close(resolve));
  });

  const pageUrl = (path: string) => `http://127.0.0.1:${(pages!.address() as AddressInfo).port}${path}`;

  /** A tab signed in as Globex, in a fresh browser context, and the page's errors from now on. */
  async function signedInTab(): Promise<{ page: Page; errors: string[] }> {
    const context = await browser.newContext();
    // Cookies are not port-scoped: the session set for 127.0.0.1 also goes to the BFFs' ports.
    await context.addCookies([
      { name: 'session', value: await signSession({ org_id: 'globex', org_name: 'Globex', embed_properties: { region: 'US' } }), url: pageUrl('/') },
    ]);
    const page = await context.newPage();
    return { page, errors: collectPageErrors(page) };
  }

  /** The plain page, signed in, once its dashboard is ready. */
  async function openSignedIn(): Promise<{ page: Page; errors: string[] }> {
    const tab = await signedInTab();
    await tab.page.goto(pageUrl('/'));
    await waitForDashboardReady(tab.page, tab.errors);
    return tab;
  }

  it("shows the signed-in customer's dashboard, ready, with no console errors", async () => {
    const { page, errors } = await openSignedIn();
    expect(await dashboardGroupName(page)).toBe('Globex');
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it("hears the dashboard's own events: its analytics, and its JS Event Button clicked in the frame", async () => {
    const { page, errors } = await openSignedIn();
    const events = page.locator('#events li');
    await events.filter({ hasText: /^analyticsEventFired / }).waitFor({ timeout: 10_000 });
    const frame = await (await page.$('embedded-dashboard iframe'))!.contentFrame();
    await frame!.click('[data-testid="js-event-button"]');
    await events.filter({ hasText: /^exportRequested / }).waitFor({ timeout: 10_000 });
    const seen = (await events.allTextContents()).map((text) => {
      const space = text.indexOf(' ');
      return { name: text.slice(0, space), detail: JSON.parse(text.slice(space + 1)) as unknown };
    });
    expect(seen).toContainEqual({
      name: 'analyticsEventFired',
      detail: { user_id: '', name: 'Dashboard Page Viewed', properties: { customer_name: 'Globex' }, custom_properties: {} },
    });
    expect(seen.filter((event) => event.name === 'exportRequested')).toEqual([
      { name: 'exportRequested', detail: { customerName: 'Globex', customerProvidedId: 'globex' } },
    ]);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it("shows a single chart: the element README's chart block, with a token the vendor minted for that chart alone", async () => {
    const { page, errors } = await signedInTab();
    const tokenRequest = page.waitForRequest((r) => r.url() === `${chartBff!.url}/embed/token`);
    await page.goto(pageUrl('/chart?chart=revenue-by-month'));
    expect((await tokenRequest).postDataJSON()).toEqual({ dashboard: 'sales-overview', chart: 'revenue-by-month' });
    await waitForDashboardReady(page, errors);
    const frame = (await (await page.$('embedded-dashboard iframe'))!.contentFrame())!;
    // The vendor's embed-token URL: /iframe/<jwt>/<environment>.
    expect(frame.url()).toMatch(new RegExp(`^${emulator!.url}/iframe/[\\w-]+\\.[\\w-]*\\.[\\w-]+\\.[\\w-]+\\.[\\w-]+/production$`));
    const shown = await frame.evaluate(() => ({
      charts: [...document.querySelectorAll('figure.chart .chart-title')].map((title) => title.textContent),
      kpis: document.querySelectorAll('.kpi').length,
      details: document.querySelectorAll('[data-testid="toggle-details"]').length,
    }));
    expect(shown).toEqual({ charts: ['Revenue by month (USD)'], kpis: 0, details: 0 });
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('a chart of another dashboard: the vendor refuses it, the BFF says upstream_error (502), the element shows error', async () => {
    const { page } = await signedInTab();
    const tokenResponse = page.waitForResponse((r) => r.url() === `${chartBff!.url}/embed/token`);
    await page.goto(pageUrl('/chart?chart=tickets-by-status'));
    const answer = await tokenResponse;
    expect(answer.status()).toBe(502);
    expect(((await answer.json()) as { error: { code: string } }).error.code).toBe('upstream_error');
    await page.waitForSelector('embedded-dashboard[state="error"]', { state: 'attached', timeout: 10_000 });
    await page.context().close();
  });
});

describe('consumer files, type-checked with tsc against the installed types', () => {
  const tsconfig = {
    compilerOptions: {
      target: 'ES2022',
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      lib: ['ES2023', 'DOM', 'DOM.Iterable'],
      types: ['node'],
      strict: true,
      noEmit: true,
      // Our .d.ts files (and what they pull in) are checked; TypeScript's own lib files are not.
      skipLibCheck: false,
      skipDefaultLibCheck: true,
      jsx: 'react-jsx',
    },
  };
  const readmeBlock = (path: string, after: string) => {
    const readme = readFileSync(join(REPOSITORY_ROOT, path), 'utf8');
    const block = new RegExp(`${after}[\\s\\S]*?\`\`\`(?:ts|tsx)(?: [a-z ]+)?\\n([\\s\\S]*?)\`\`\``).exec(readme)?.[1];
    if (!block) throw new Error(`${path} has no code block after "${after}"`);
    return block;
  };
  // The generated Vue (GlobalComponents) and Svelte 5 (SvelteHTMLElements) typings, as their tooling reads them.
  const frameworkConsumer = `import type {} from '@embedded-dashboard/element/vue';
import type {} from '@embedded-dashboard/element/svelte';
import type { GlobalComponents } from 'vue';
import type { SvelteHTMLElements } from 'svelte/elements';

export const vueProps: InstanceType<GlobalComponents['embedded-dashboard']>['$props'] = {
  dashboard: 'sales-overview', srcTemplate: 'https://d.example/iframe/{dashboard}', variables: { region: 'EU' }, noAutoResize: true,
  localeCode: 'de-DE', refreshMinutes: 15, protocol: 'explo-jwt', chart: 'revenue-by-month',
  onDashboardLoad: (e) => console.log(e.detail.loadTime.toFixed(0)), onDashboardError: (e) => console.log(e.detail.code),
  onDashboardCustomEvent: (e) => console.log(e.detail.name, JSON.stringify(e.detail.detail)),
};
export const svelteAttributes: SvelteHTMLElements['embedded-dashboard'] = {
  dashboard: 'sales-overview', 'src-template': 'https://d.example/iframe/{dashboard}', variables: { region: 'EU' }, 'refresh-margin': 30,
  'locale-code': 'de-DE', 'refresh-minutes': 15, protocol: 'explo-jwt', chart: 'revenue-by-month',
  'ondashboard-load': (e) => console.log(e.detail.loadTime.toFixed(0)), 'ondashboard-variable-change': (e) => console.log(e.detail.name), class: 'wide',
  'ondashboard-custom-event': (e) => console.log(e.detail.name, JSON.stringify(e.detail.detail)),
};
`;
  const reactConsumer = `import { createRef } from 'react';
import { EmbeddedDashboard, type EmbeddedDashboardElement } from '@embedded-dashboard/react';

const ref = createRef<EmbeddedDashboardElement>();
export const page = (
  <main>
    <EmbeddedDashboard ref={ref} dashboard="sales-overview" srcTemplate="https://d.example/iframe/{dashboard}"
      variables={{ region: 'EU', seats: 3 }} refreshMargin={30} noAutoResize className="wide"
      localeCode="de-DE" refreshMinutes={15}
      onLoad={(e) => console.log(e.detail.loadTime.toFixed(0))} onError={(e) => console.log(e.detail.code)}
      onToken={(e) => console.log(e.detail.reason)} onResize={(e) => console.log(e.detail.height)}
      onVariableChange={(e) => console.log(e.detail.name, e.detail.value, ref.current?.currentVariables.region)}
      onCustomEvent={(e) => console.log(e.detail.name, JSON.stringify(e.detail.detail))}>
      <p slot="error">Sign in again</p>
    </EmbeddedDashboard>
    <EmbeddedDashboard dashboard="sales-overview" chart="revenue-by-month" protocol="explo-jwt" srcTemplate="https://d.example/iframe/{token}" />
    <embedded-dashboard dashboard="d" src-template="https://d.example/iframe/{dashboard}" variables={{ region: 'EU' }}
      locale-code="de-DE" refresh-minutes={15}
      ondashboard-load={(e) => console.log(e.detail.loadTime.toFixed(0))}
      ondashboard-custom-event={(e) => console.log(e.detail.name, JSON.stringify(e.detail.detail))} />
  </main>
);
`;
  const consumer = `import { createEmbedRoutes, createBffNodeListener, createBffApp, type BffOptions } from '@embedded-dashboard/bff';
import { createRedisStore } from '@embedded-dashboard/bff/redis';
import { UserGroupClient, UserGroupApiError } from '@embedded-dashboard/client';
import { startEmulator } from '@embedded-dashboard/emulator';
import { isTokenResponse, type DashboardVariables, type TokenResponse } from '@embedded-dashboard/protocol';
import '@embedded-dashboard/element';
import { TAG_NAME, type DashboardCustomEvent, type DashboardLoadEvent, type EmbeddedDashboard } from '@embedded-dashboard/element';
import { EmbeddedDashboard as StandaloneElement } from '@embedded-dashboard/element/standalone';
import { renderElementScript, TRUSTED_TYPES_POLICY } from '@embedded-dashboard/bff';

export const standalone: EmbeddedDashboard = new StandaloneElement();
standalone.allow = 'fullscreen; clipboard-write';
export const pinned: string = renderElementScript({ src: '/embedded-dashboard.js', integrity: 'sha384-x', nonce: 'n' });
export const policyName: string = TRUSTED_TYPES_POLICY;

const upstream = new UserGroupClient({ baseUrl: 'http://127.0.0.1:8790', apiToken: 'dev-customer-key' });
const options: BffOptions = { upstream, session: { secret: 'x'.repeat(32), cookie: 'session' }, secrets: ['dev-customer-key'] };
export const routes = createEmbedRoutes(options);
export const listener = createBffNodeListener(createBffApp({ ...options, store: createRedisStore({ url: 'redis://127.0.0.1:6379' }) }));
export const running = startEmulator({ port: 0 }).then((e) => e.url.length);
export const isApiError = (e: unknown): e is UserGroupApiError => e instanceof UserGroupApiError;
export const tokenOf = (x: unknown): TokenResponse | undefined => (isTokenResponse(x) ? x : undefined);

const el: EmbeddedDashboard = document.createElement('embedded-dashboard');
el.variables = { region: 'EU', seats: 3, beta: true, note: null };
el.addEventListener('dashboard-load', (e) => {
  const loaded: DashboardLoadEvent = e;
  console.log(loaded.detail.loadTime.toFixed(0), el.state === 'ready', TAG_NAME);
});
el.addEventListener('dashboard-error', (e) => console.log(e.detail.code, e.detail.retryable));
el.localeCode = 'de-DE';
el.refreshMinutes = 15;
el.chart = 'revenue-by-month';
export const now: DashboardVariables = el.currentVariables;
el.addEventListener('dashboard-custom-event', (e) => {
  const own: DashboardCustomEvent = e;
  console.log(own.detail.name, JSON.stringify(own.detail.detail));
});
`;

  /**
   * Both tsc programs start as soon as the file is collected and run beside the CLI and Chromium
   * tests above (tsc keeps one core busy; those mostly wait), so these tests come last and only
   * read the results.
   */
  const bundlerCheck = (async () => {
    const dir = join(consumerDir, 'typecheck-bundler');
    await mkdir(dir, { recursive: true });
    // Our declarations are lib-checked by the NodeNext program below; this one checks that the
    // standalone export resolves and is typed under Bundler (the planted mistake), not Node's types again.
    const options = { ...tsconfig.compilerOptions, module: 'ESNext', moduleResolution: 'Bundler', types: [], skipLibCheck: true };
    await writeFile(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: options }, null, 2));
    await writeFile(
      join(dir, 'standalone.ts'),
      `import { EmbeddedDashboard, TAG_NAME } from '@embedded-dashboard/element/standalone';\nexport const el: EmbeddedDashboard = new EmbeddedDashboard();\nel.allow = TAG_NAME;\n`,
    );
    await writeFile(
      join(dir, 'mistake.ts'),
      `import { EmbeddedDashboard } from '@embedded-dashboard/element/standalone';\nnew EmbeddedDashboard().allow = 42;\n`,
    );
    return run(bin('tsc'), ['-p', 'typecheck-bundler/tsconfig.json'], { cwd: consumerDir });
  })();

  const mainCheck = (async () => {
    await mkdir(join(consumerDir, 'typecheck'), { recursive: true });
    await writeFile(join(consumerDir, 'typecheck', 'tsconfig.json'), JSON.stringify(tsconfig, null, 2));
    await writeFile(join(consumerDir, 'typecheck', 'consumer.ts'), consumer);
    await writeFile(join(consumerDir, 'typecheck', 'react-consumer.tsx'), reactConsumer);
    await writeFile(join(consumerDir, 'typecheck', 'vue-svelte-consumer.ts'), frameworkConsumer);
    await writeFile(join(consumerDir, 'typecheck', 'react-readme.tsx'), readmeBlock('packages/react/README.md', 'npm install @embedded-dashboard/react'));
    // The JSX declaration of the bare tag, as packages/element/README.md gives it.
    await writeFile(join(consumerDir, 'typecheck', 'embedded-dashboard.d.ts'), readmeBlock('packages/element/README.md', 'To type the tag for JSX'));
    // Files of mistakes prove the declarations are really read (not `any`). The dashboard's own
    // fields (a JS Event Button's customerName) are in the custom event's detail.detail, never its detail.
    await writeFile(
      join(consumerDir, 'typecheck', 'mistakes.ts'),
      `${consumer}\nel.variables = 42;\nel.addEventListener('dashboard-load', (e) => e.detail.nope);\n` +
        `el.addEventListener('dashboard-custom-event', (e) => e.detail.customerName);\nel.currentVariables = {};\n`,
    );
    await writeFile(
      join(consumerDir, 'typecheck', 'react-mistakes.tsx'),
      `import { EmbeddedDashboard } from '@embedded-dashboard/react';\nexport const a = <EmbeddedDashboard dashboard="d" srcTemplate="t" variables={{ region: () => 'EU' }} />;\nexport const b = <EmbeddedDashboard dashboard="d" srcTemplate="t" onLoad={(e) => e.detail.nope} />;\n` +
        `export const c = <EmbeddedDashboard dashboard="d" srcTemplate="t" onCustomEvent={(e) => e.detail.customerName} />;\n`,
    );
    await writeFile(
      join(consumerDir, 'typecheck', 'vue-svelte-mistakes.ts'),
      `${frameworkConsumer}\nexport const v: InstanceType<GlobalComponents['embedded-dashboard']>['$props'] = { onDashboardLoad: (e) => e.detail.nope };\nexport const s: SvelteHTMLElements['embedded-dashboard'] = { variables: 42 };\n` +
        `export const vc: InstanceType<GlobalComponents['embedded-dashboard']>['$props'] = { onDashboardCustomEvent: (e) => e.detail.customerName };\n` +
        `export const sc: SvelteHTMLElements['embedded-dashboard'] = { 'ondashboard-custom-event': (e) => e.detail.customerName };\n`,
    );
    return run(bin('tsc'), ['-p', 'typecheck/tsconfig.json'], { cwd: consumerDir });
  })();
  // Awaited by their tests; a failure to write the files is reported there, not as an unhandled rejection.
  for (const check of [bundlerCheck, mainCheck]) check.catch(() => undefined);

  it("types the standalone script's export under moduleResolution bundler too", async () => {
    const result = await bundlerCheck;
    const errors = result.stdout.split('\n').filter((line) => / error TS\d+:/.test(line));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^typecheck-bundler\/mistake\.ts\(2,.*error TS2322/);
  });

  it('passes with the published declarations, and fails where a consumer gets the types wrong', async () => {
    const result = await mainCheck;
    const errors = result.stdout.split('\n').filter((line) => / error TS\d+:/.test(line));
    expect(result.stderr).toBe('');
    expect(errors.filter((line) => !/^typecheck\/(react-|vue-svelte-)?mistakes\.tsx?\(/.test(line))).toEqual([]);
    const customDetail = /Property 'customerName' does not exist on type 'DashboardCustomEventDetail'/;
    expect(errors).toHaveLength(11);
    expect(errors[0]).toMatch(/^typecheck\/mistakes\.ts\(\d+,1\): error TS2322/);
    expect(errors[1]).toMatch(/^typecheck\/mistakes\.ts.*Property 'nope' does not exist/);
    expect(errors[2]).toMatch(/^typecheck\/mistakes\.ts.*error TS2339/);
    expect(errors[2]).toMatch(customDetail);
    expect(errors[3]).toMatch(/^typecheck\/mistakes\.ts.*error TS2540: Cannot assign to 'currentVariables' because it is a read-only property/);
    expect(errors[4]).toMatch(/^typecheck\/react-mistakes\.tsx\(2,.*error TS2322/);
    expect(errors[5]).toMatch(/^typecheck\/react-mistakes\.tsx\(3,.*Property 'nope' does not exist/);
    expect(errors[6]).toMatch(/^typecheck\/react-mistakes\.tsx\(4,.*error TS2339/);
    expect(errors[6]).toMatch(customDetail);
    expect(errors[7]).toMatch(/^typecheck\/vue-svelte-mistakes\.ts\(\d+,.*Property 'nope' does not exist/);
    expect(errors[8]).toMatch(/^typecheck\/vue-svelte-mistakes\.ts\(\d+,.*error TS2322/);
    expect(errors[9]).toMatch(/^typecheck\/vue-svelte-mistakes\.ts\(\d+,.*error TS2339/);
    expect(errors[9]).toMatch(customDetail);
    expect(errors[10]).toMatch(/^typecheck\/vue-svelte-mistakes\.ts\(\d+,.*error TS2339/);
    expect(errors[10]).toMatch(customDetail);
  });
});
