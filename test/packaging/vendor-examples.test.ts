/**
 * Each vendor entry of the element, from the packed tarballs, in the two examples that show it:
 * examples/plain-html (its standalone file on a plain page, no bundler) and examples/react-vite
 * (`@embedded-dashboard/react` and `import '@embedded-dashboard/element/<vendor>'`, `vite build`,
 * served by `vite preview`). Both behind the packed BFF CLI (`EMBED_VENDOR=<vendor>`) in front of
 * the packed emulator's mode for that vendor, signed in as a customer in Chromium: the element is
 * `ready`, its frame at the vendor's embed URL, showing that customer's rows only. Also what each
 * entry's files hold (its own protocol, no other vendor's) and a type-checked consumer of its types.
 * A vendor is one row of {@link VENDORS}; one browser, one `vite build` and one server of each
 * kind per vendor for the whole file.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import type { Browser, Frame, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freePort } from '../support/ports.js';
import { chromium, collectPageErrors, openChromium } from './browser.js';
import { copyIntoConsumer, run, runOk, startServer, type ServerProcess } from './consumer.js';

const consumerDir = inject('consumerDir');
const bin = (name: string) => join(consumerDir, 'node_modules/.bin', name);
const elementDir = join(consumerDir, 'node_modules/@embedded-dashboard/element');
const SESSION_SECRET = 'vendor-examples-session-secret-0123456789abcdef';
/** Where the examples' pages and `.env` say each vendor is (its emulator's port in their READMEs). */
const EXAMPLE_VENDOR_ORIGINS: Readonly<Record<string, string>> = { superset: 'http://127.0.0.1:8791', metabase: 'http://127.0.0.1:8792' };

/** The page's own `dashboard-load` handler wrote its status line. */
const loadedStatus = async (page: Page) => {
  await page.waitForFunction(() => /^loaded in \d+ ms$/.test(document.getElementById('status')?.textContent ?? ''), undefined, { timeout: 10_000 });
};

/** One vendor entry of the element, and how its examples are run and checked. */
interface VendorCase {
  vendor: string;
  /** The module entry (`import '@embedded-dashboard/element/<vendor>'`) and its `dist` file. */
  entry: { specifier: string; dist: string };
  /** The standalone file, in dist/standalone/. */
  standalone: string;
  /** The page of each example for this vendor (`<vendor>.html`). */
  page: string;
  /** Text the vendor's protocol code must carry (in its standalone file and the React build). */
  ownMarkers: readonly string[];
  /** Text of other protocols, by whose they are, that must not be in its standalone file. */
  foreignMarkers: Readonly<Record<string, readonly string[]>>;
  /** A `dist` folder of the element the entry's import graph must not reach. */
  foreignFolders: readonly string[];
  /** Starts the vendor (the emulator CLI's mode) and returns its origin and the BFF CLI's environment for it. */
  startVendor(): Promise<{ vendor: ServerProcess; bffEnv: Record<string, string> }>;
  /** Vite env of the React example for a vendor at `origin`. */
  viteEnv(origin: string): Record<string, string>;
  /** The frame URL the element must be at, for a vendor at `origin`. */
  frameUrl(origin: string): RegExp;
  /** Each customer the examples sign in, and the rows its dashboard shows (and the other's it must not). */
  rows: Readonly<Record<string, readonly string[]>>;
  /** What the vendor's page shows or answers beyond `ready` (its own handlers of the element's events or methods). */
  pageCheck(page: Page): Promise<void>;
  /** A consumer of the entry's types, and planted mistakes with the errors tsc must give, in order. */
  types: { consumer: string; mistakes: string; errors: readonly RegExp[] };
}

/**
 * Text of each vendor's protocol code in a build: its message names, kept by every minifier.
 * (Not `dashboardReadyToLoad`/`dashboardLoaded`: the shared frame controller's lifecycle names,
 * which Metabase's swap protocol uses too.)
 */
const EXPLO_MARKERS = ['updateExploDashboardVariables', 'explo-jwt'];
const SUPERSET_MARKERS = ['__embedded_comms__', 'getDataMask', 'guestToken'];
const METABASE_MARKERS = ['metabase'];

const SUPERSET_DASHBOARD = '5b3c1a52-4f0e-4d8e-9c57-0d6f1c2a7e01';
const METABASE_SECRET = 'ab'.repeat(32);

const metabaseTypes = `import '@embedded-dashboard/element/metabase';
import { METABASE_MAX_URL_LENGTH, TAG_NAME, type DashboardLocationEvent, type MetabaseLocation } from '@embedded-dashboard/element/metabase';
import { EmbeddedDashboard } from '@embedded-dashboard/react';

const el = document.querySelector(TAG_NAME)!;
el.addEventListener('dashboard-location', (event) => {
  const own: DashboardLocationEvent = event;
  const location: MetabaseLocation = own.detail;
  console.log(new URLSearchParams(location.search).getAll('region'), location.hash, METABASE_MAX_URL_LENGTH);
});
export const page = <EmbeddedDashboard protocol="metabase" dashboard="1" srcTemplate="https://mb.example.com/embed/dashboard/{token}" tokenUrl="/embed/token" />;
`;
const SUPERSET_GUEST_SECRET = 'vendor-examples-guest-secret-0123456789abcdef';
const SUPERSET_AUDIENCE = 'packaging-superset';

const supersetTypes = `import '@embedded-dashboard/element/superset';
import { FrameRequestError, SUPERSET_REQUEST_TIMEOUT_MS, TAG_NAME, type DashboardDataMaskEvent, type SupersetDataMask } from '@embedded-dashboard/element/superset';
import { createRef } from 'react';
import { EmbeddedDashboard, type EmbeddedDashboardElement } from '@embedded-dashboard/react';

const el = document.querySelector(TAG_NAME)!;
el.addEventListener('dashboard-data-mask', (event) => {
  const own: DashboardDataMaskEvent = event;
  if (own.detail.nativeFiltersChanged) console.log(Object.keys(own.detail.dataMask));
});
export async function read(): Promise<[SupersetDataMask, string[], string]> {
  try {
    return [await el.getDataMask(), await el.getActiveTabs(), await el.getDashboardPermalink('chart-1')];
  } catch (error) {
    if (error instanceof FrameRequestError) console.log(error.code, SUPERSET_REQUEST_TIMEOUT_MS);
    throw error;
  }
}
const ref = createRef<EmbeddedDashboardElement>();
export const page = (
  <EmbeddedDashboard ref={ref} protocol="superset" dashboard="${SUPERSET_DASHBOARD}" srcTemplate="https://bi.example.com/embedded/{dashboard}"
    tokenUrl="/embed/token" onLoad={() => void ref.current?.getDataMask().then((mask) => console.log(Object.keys(mask)))} />
);
`;

/** Every vendor entry with examples, one row each. */
const VENDORS: readonly VendorCase[] = [
  {
    vendor: 'superset',
    entry: { specifier: '@embedded-dashboard/element/superset', dist: 'dist/superset.js' },
    standalone: 'embedded-dashboard-superset.js',
    page: 'superset.html',
    ownMarkers: SUPERSET_MARKERS,
    foreignMarkers: { explo: EXPLO_MARKERS, metabase: METABASE_MARKERS },
    foreignFolders: ['explo', 'metabase'],
    async startVendor() {
      const vendor = await startServer(
        bin('embedded-dashboard-emulator'),
        ['--vendor', 'superset', '--port', '0', '--guest-secret', SUPERSET_GUEST_SECRET, '--guest-audience', SUPERSET_AUDIENCE],
        { cwd: consumerDir, readyText: 'emulator listening on ' },
      );
      // Guest tokens signed by the BFF with Superset's GUEST_TOKEN_JWT_SECRET: no call to the vendor for them.
      const bffEnv = {
        EMBED_VENDOR: 'superset',
        EMBED_UPSTREAM_URL: vendor.url,
        EMBED_DASHBOARDS: SUPERSET_DASHBOARD,
        EMBED_SUPERSET_RLS: 'customer_id = {org_id}',
        EMBED_SUPERSET_GUEST_SECRET: SUPERSET_GUEST_SECRET,
        EMBED_SUPERSET_AUDIENCE: SUPERSET_AUDIENCE,
      };
      return { vendor, bffEnv };
    },
    viteEnv: (origin) => ({ VITE_SUPERSET_URL: origin, VITE_SUPERSET_DASHBOARD: SUPERSET_DASHBOARD }),
    frameUrl: (origin) => new RegExp(`^${escapeRegExp(origin)}/embedded/${SUPERSET_DASHBOARD}\\?`),
    // The emulator's sample dataset, under the RLS clause customer_id = '<org_id>'.
    rows: { acme: ['anvil', 'rocket', 'magnet'], globex: ['reactor', 'turbine'] },
    async pageCheck(page) {
      await loadedStatus(page);
      // The page's button asks the running frame (getDataMask).
      await page.click('#filters');
      await page.waitForFunction(() => document.getElementById('data-mask')?.textContent?.startsWith('{'), undefined, { timeout: 15_000 });
      expect(typeof JSON.parse((await page.textContent('#data-mask'))!)).toBe('object');
    },
    types: {
      consumer: supersetTypes,
      mistakes:
        `${supersetTypes}\nexport async function wrong(): Promise<void> {\n  const tabs: number = (await el.getActiveTabs()).length + (await el.getActiveTabs());\n` +
        `  await el.getDashboardPermalink(42);\n  console.log(tabs);\n}\n` +
        `export const misspelt = <EmbeddedDashboard protocol="supersett" dashboard="d" srcTemplate="t" />;\n`,
      errors: [
        /error TS2365/,
        /error TS2345: Argument of type 'number' is not assignable to parameter of type 'string'/,
        /error TS2820: Type '"supersett"' is not assignable to type '.*"superset"/,
      ],
    },
  },
  {
    vendor: 'metabase',
    entry: { specifier: '@embedded-dashboard/element/metabase', dist: 'dist/metabase.js' },
    standalone: 'embedded-dashboard-metabase.js',
    page: 'metabase.html',
    ownMarkers: METABASE_MARKERS,
    foreignMarkers: { explo: EXPLO_MARKERS, superset: SUPERSET_MARKERS },
    foreignFolders: ['explo', 'superset'],
    async startVendor() {
      const vendor = await startServer(bin('embedded-dashboard-emulator'), ['--vendor', 'metabase', '--port', '0', '--metabase-secret', METABASE_SECRET], {
        cwd: consumerDir,
        readyText: 'emulator listening on ',
      });
      // Guest-embed tokens signed by the BFF with the embedding secret, customer_id locked to the session's org_id.
      const bffEnv = {
        EMBED_VENDOR: 'metabase',
        EMBED_UPSTREAM_URL: vendor.url,
        EMBED_DASHBOARDS: '1',
        EMBED_METABASE_SECRET: METABASE_SECRET,
        EMBED_METABASE_PARAMS: '{"customer_id": "{org_id}"}',
      };
      return { vendor, bffEnv };
    },
    viteEnv: (origin) => ({ VITE_METABASE_URL: origin, VITE_METABASE_DASHBOARD: '1' }),
    // The token in the path, the element's hash options after it.
    frameUrl: (origin) => new RegExp(`^${escapeRegExp(origin)}/embed/dashboard/[\\w-]+\\.[\\w-]+\\.[\\w-]+#(?=.*titled=true)(?=.*bordered=false)`),
    // The emulator's sample rows, under the locked customer_id.
    rows: { acme: ['anvil', 'rocket', 'magnet'], globex: ['reactor', 'turbine'] },
    pageCheck: loadedStatus,
    types: {
      consumer: metabaseTypes,
      mistakes:
        `${metabaseTypes}\nexport const count: number = el.getAttribute('dashboard')!.length + 'x';\n` +
        `el.addEventListener('dashboard-location', (event) => event.detail.token);\n` +
        `export const misspelt = <EmbeddedDashboard protocol="metabse" dashboard="1" srcTemplate="t" />;\n`,
      errors: [
        /error TS2322: Type 'string' is not assignable to type 'number'/,
        /error TS2339: Property 'token' does not exist/,
        /error TS2820: Type '"metabse"' is not assignable to type '.*"metabase"/,
      ],
    },
  },
];

const EXAMPLES = ['plain-html', 'react-vite'] as const;
type ExampleName = (typeof EXAMPLES)[number];

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The relative imports of an ES module file, followed: every file of the package its import graph loads. */
async function importGraph(entry: string): Promise<string[]> {
  const seen = new Set<string>();
  const visit = async (file: string): Promise<void> => {
    if (seen.has(file)) return;
    seen.add(file);
    const code = await readFile(file, 'utf8');
    for (const [, specifier] of code.matchAll(/(?:^|[\s;}])(?:import|export)\s[^'"]*?['"](\.{1,2}\/[^'"]+)['"]/g)) await visit(join(dirname(file), specifier!));
  };
  await visit(entry);
  return [...seen].map((file) => relative(elementDir, file));
}

/**
 * Each vendor's tsc program, started when the file is collected: it keeps one core busy while the
 * browser tests mostly wait, and its test (last in the file) reads the result.
 */
const typechecks = new Map(
  VENDORS.map((vendor) => {
    const dir = `typecheck-${vendor.vendor}`;
    const compilerOptions = {
      target: 'ES2022',
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      lib: ['ES2023', 'DOM', 'DOM.Iterable'],
      types: [],
      strict: true,
      noEmit: true,
      // The entry's own declarations (and React's it reaches) are checked too.
      skipLibCheck: false,
      skipDefaultLibCheck: true,
      jsx: 'react-jsx',
    };
    const result = (async () => {
      await mkdir(join(consumerDir, dir), { recursive: true });
      await writeFile(join(consumerDir, dir, 'tsconfig.json'), JSON.stringify({ compilerOptions }, null, 2));
      await writeFile(join(consumerDir, dir, 'consumer.tsx'), vendor.types.consumer);
      await writeFile(join(consumerDir, dir, 'mistakes.tsx'), vendor.types.mistakes);
      return run(bin('tsc'), ['-p', `${dir}/tsconfig.json`], { cwd: consumerDir });
    })();
    result.catch(() => undefined);
    return [vendor.vendor, result] as const;
  }),
);

describe.each(VENDORS)("the installed $entry.specifier entry's files", (vendor) => {
  it('the tarball has its module entry, types and standalone file, the file as integrity.json hashes it', async () => {
    const manifest = JSON.parse(readFileSync(join(elementDir, 'package.json'), 'utf8')) as { exports: Record<string, { types: string; default: string }> };
    const subpath = `./${vendor.vendor}`;
    expect(manifest.exports[subpath]).toEqual({ types: `./${vendor.entry.dist.replace(/\.js$/, '.d.ts')}`, default: `./${vendor.entry.dist}` });
    expect(manifest.exports[`./standalone/${vendor.vendor}`]?.default).toBe(`./dist/standalone/${vendor.standalone}`);
    const standalone = readFileSync(join(elementDir, 'dist/standalone', vendor.standalone));
    const integrity = JSON.parse(readFileSync(join(elementDir, 'dist/standalone/integrity.json'), 'utf8')) as Record<string, string>;
    expect(integrity[vendor.standalone]).toBe(`sha384-${createHash('sha384').update(standalone).digest('base64')}`);
  });

  it("its standalone file carries its own protocol and no other vendor's", () => {
    const code = readFileSync(join(elementDir, 'dist/standalone', vendor.standalone), 'utf8');
    // Booleans, not the file: a failure names the marker without printing the whole bundle.
    for (const marker of vendor.ownMarkers) expect(code.includes(marker), `its own ${marker}`).toBe(true);
    for (const [owner, markers] of Object.entries(vendor.foreignMarkers))
      for (const marker of markers) expect(code.includes(marker), `${owner}'s ${marker}`).toBe(false);
  });

  it("its module entry's import graph reaches every file it needs and none of another vendor's folder", async () => {
    const files = await importGraph(join(elementDir, vendor.entry.dist));
    for (const file of files) expect(existsSync(join(elementDir, file)), file).toBe(true);
    expect(files.some((file) => file.startsWith(`dist/${vendor.vendor}/`))).toBe(true);
    for (const folder of vendor.foreignFolders) expect(files.filter((file) => file.startsWith(`dist/${folder}/`))).toEqual([]);
  });
});

describe.skipIf(!chromium.available)('the plain-HTML and React examples, per vendor, from the packed tarballs', () => {
  let browser: Browser;
  const servers: ServerProcess[] = [];
  /** Per vendor: its origin, and each example's base URL. */
  const running = new Map<string, { origin: string; examples: Record<ExampleName, string> }>();
  let reactBuild = '';

  beforeAll(async () => {
    const launched = openChromium();
    const plain = await copyIntoConsumer(consumerDir, 'examples/plain-html', 'examples/plain-html');
    const react = await copyIntoConsumer(consumerDir, 'examples/react-vite', 'examples/react-vite');
    // Every vendor and its BFF at once (each a small Node process), then one build for all pages.
    const vendors = await Promise.all(
      VENDORS.map(async (vendor) => {
        const { vendor: server, bffEnv } = await vendor.startVendor();
        servers.push(server);
        const bff = await startServer(bin('embedded-dashboard-bff'), [], {
          cwd: consumerDir,
          readyText: 'bff listening on ',
          env: { ...bffEnv, EMBED_SESSION_SECRET: SESSION_SECRET, EMBED_SESSION_COOKIE: 'session', EMBED_PORT: '0' },
        });
        servers.push(bff);
        return { vendor, origin: server.url, bff: bff.url };
      }),
    );
    // The plain page names the vendor's URL as an integrator writes it: here, the emulator's port.
    for (const { vendor, origin } of vendors) {
      const page = join(plain, vendor.page);
      await writeFile(page, (await readFile(page, 'utf8')).replaceAll(EXAMPLE_VENDOR_ORIGINS[vendor.vendor]!, origin));
    }
    const viteEnv = Object.assign({}, ...vendors.map(({ vendor, origin }) => vendor.viteEnv(origin))) as Record<string, string>;
    await runOk(bin('vite'), ['build', '--logLevel', 'warn'], { cwd: react, env: { ...viteEnv, NO_COLOR: '1' }, timeoutMs: 300_000 });
    const assets = join(react, 'dist/assets');
    reactBuild = (await Promise.all((await readdir(assets)).filter((f) => f.endsWith('.js')).map((f) => readFile(join(assets, f), 'utf8')))).join('\n');
    // Per vendor, each example's server in front of that vendor's BFF.
    for (const { vendor, origin, bff } of vendors) {
      const env = { BFF_URL: bff, SESSION_SECRET, NO_COLOR: '1' };
      const [plainServer, preview] = await Promise.all([
        startServer(process.execPath, ['serve.mjs'], { cwd: plain, env: { ...env, PORT: '0' }, readyText: 'example listening on ' }),
        freePort().then(async (port) => {
          const server = await startServer(bin('vite'), ['preview', '--host', '127.0.0.1', '--port', String(port), '--strictPort'], {
            cwd: react,
            env,
            readyText: 'Local:',
            timeoutMs: 60_000,
          });
          return Object.assign(server, { url: `http://127.0.0.1:${port}` });
        }),
      ]);
      servers.push(plainServer, preview);
      running.set(vendor.vendor, { origin, examples: { 'plain-html': plainServer.url, 'react-vite': preview.url } });
    }
    browser = await launched;
  });
  afterAll(async () => {
    await browser?.close();
    await Promise.all(servers.reverse().map((server) => server.stop()));
  });

  const cases = VENDORS.flatMap((vendor) => EXAMPLES.map((example) => ({ vendor, example, name: vendor.vendor })));

  it.each(cases)(
    "$name in $example: each customer signs in and the element is ready, at the vendor's embed URL, with its own rows",
    async ({ vendor, example }) => {
      const { origin, examples } = running.get(vendor.vendor)!;
      const customers = Object.keys(vendor.rows);
      for (const customer of customers) {
        const context = await browser.newContext();
        const page = await context.newPage();
        const errors = collectPageErrors(page);
        await page.goto(`${examples[example]}/login?customer=${customer}&next=${vendor.page}`);
        expect(new URL(page.url()).pathname).toBe(`/${vendor.page}`);
        const frame = await readyFrame(page, errors);
        expect(frame.url()).toMatch(vendor.frameUrl(origin));
        const text = await rowsShown(frame, vendor.rows[customer]!);
        for (const other of customers.filter((name) => name !== customer)) for (const row of vendor.rows[other]!) expect(text).not.toContain(row);
        await vendor.pageCheck(page);
        expect(errors).toEqual([]);
        await context.close();
      }
    },
  );

  it.each(VENDORS)("$vendor: the React build carries the vendor's protocol", (vendor) => {
    for (const marker of vendor.ownMarkers) expect(reactBuild.includes(marker), marker).toBe(true);
  });
});

describe.each(VENDORS)("the installed $entry.specifier entry's types", (vendor) => {
  it('type-check in a consumer (methods, events, the React prop), and planted mistakes fail', async () => {
    const dir = `typecheck-${vendor.vendor}`;
    const result = await typechecks.get(vendor.vendor)!;
    const errors = result.stdout.split('\n').filter((line) => / error TS\d+:/.test(line));
    expect(errors.filter((line) => !line.startsWith(`${dir}/mistakes.tsx(`))).toEqual([]);
    expect(errors).toHaveLength(vendor.types.errors.length);
    vendor.types.errors.forEach((error, i) => expect(errors[i]).toMatch(error));
  });
});

/** Waits for `<embedded-dashboard state="ready">` and returns its frame; fails with the element's state and the page's errors. */
async function readyFrame(page: Page, errors: string[]): Promise<Frame> {
  try {
    await page.waitForSelector('embedded-dashboard[state="ready"]', { state: 'attached', timeout: 45_000 });
    const frame = await (await page.$('embedded-dashboard iframe'))?.contentFrame();
    if (!frame) throw new Error('the element has no frame');
    return frame;
  } catch (error) {
    const state = await page.getAttribute('embedded-dashboard', 'state').catch(() => null);
    throw new Error(`${(error as Error).message}\nelement state: ${state}\npage errors:\n${errors.join('\n')}`, { cause: error });
  }
}

/** The frame's text once every one of `rows` is in it. */
async function rowsShown(frame: Frame, rows: readonly string[]): Promise<string> {
  try {
    await frame.waitForFunction((expected) => expected.every((row) => document.body?.innerText.includes(row)), rows, { timeout: 30_000 });
  } catch (error) {
    const text = await frame.evaluate(() => document.body?.innerText ?? '').catch(String);
    throw new Error(`${(error as Error).message}\nthe frame shows: ${JSON.stringify(text.slice(0, 500))}`, { cause: error });
  }
  return frame.evaluate(() => document.body.innerText);
}
