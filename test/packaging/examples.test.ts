/**
 * examples/express, examples/fastify and examples/nextjs, installed from the packed tarballs in
 * the consumer project: build (Next.js), start against the emulator CLI, sign in through each
 * app's own login as two customers in Chromium, and see each one's own dashboard `ready`. The
 * BFF README's mounting snippets must be these examples' code.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { chromium, collectPageErrors, dashboardGroupName, openChromium, waitForDashboardReady } from './browser.js';
import { REPOSITORY_ROOT, startServer, type ServerProcess } from './consumer.js';
import { EXAMPLE_USERS as CUSTOMERS, startExample } from './example-apps.js';

const consumerDir = inject('consumerDir');

/** The code between `// #region <name>` and `// #endregion <name>` of an example file. */
function region(file: string, name = 'mount-bff'): string {
  const text = readFileSync(join(REPOSITORY_ROOT, file), 'utf8');
  const match = new RegExp(`// #region ${name}\\n([\\s\\S]*?)// #endregion ${name}`).exec(text);
  if (!match) throw new Error(`${file} has no ${name} region`);
  return match[1]!;
}

/** Every fenced code block of a Markdown file. */
const codeBlocks = (file: string) =>
  [...readFileSync(join(REPOSITORY_ROOT, file), 'utf8').matchAll(/```[a-z]*(?: [a-z ]+)?\n([\s\S]*?)```/g)].map((m) => m[1]!);

describe('the BFF README mounting snippets', () => {
  it.each([
    ['examples/express/server.js', 'mount-bff'],
    ['examples/fastify/server.js', 'mount-bff'],
    ['examples/nextjs/app/embed/[...path]/route.ts', 'mount-bff'],
    ['examples/nextjs/app/edge/embed/[...path]/route.ts', 'mount-bff-edge'],
    ['examples/cloudflare-workers/src/worker.ts', 'worker'],
  ])('are the code of %s, in packages/bff/README.md and the example README', (file, name) => {
    const code = region(file, name);
    expect(
      codeBlocks('packages/bff/README.md').some((block) => block.includes(code)),
      'packages/bff/README.md',
    ).toBe(true);
    expect(
      codeBlocks(join(file.split('/').slice(0, 2).join('/'), 'README.md')).some((block) => block.includes(code)),
      'the example README',
    ).toBe(true);
  });
});

describe.skipIf(!chromium.available)('the examples, installed from the packed tarballs', () => {
  let emulator: ServerProcess | undefined;
  let browser: Browser;

  beforeAll(async () => {
    emulator = await startServer(join(consumerDir, 'node_modules/.bin/embedded-dashboard-emulator'), ['--port', '0'], {
      cwd: consumerDir,
      readyText: 'emulator listening on ',
    });
    browser = await openChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await emulator?.stop();
  });

  /** Signs in through the app's own login form, in a fresh browser context. */
  async function signIn(base: string, customer: (typeof CUSTOMERS)[number]): Promise<{ page: Page; errors: string[] }> {
    const context = await browser.newContext();
    const page = await context.newPage();
    const errors = collectPageErrors(page);
    await page.goto(`${base}/dashboard`);
    expect(new URL(page.url()).pathname, 'signed out, /dashboard sends to the login').toBe('/login');
    await page.fill('input[name=email]', customer.email);
    await page.fill('input[name=password]', customer.password);
    await Promise.all([page.waitForURL(`${base}/dashboard`), page.click('button')]);
    return { page, errors };
  }

  async function expectOwnDashboards(base: string, afterReady?: (page: Page, customer: (typeof CUSTOMERS)[number]) => Promise<void>): Promise<void> {
    for (const customer of CUSTOMERS) {
      const { page, errors } = await signIn(base, customer);
      await waitForDashboardReady(page, errors);
      expect(await dashboardGroupName(page)).toBe(customer.name);
      await afterReady?.(page, customer);
      expect(errors).toEqual([]);
      await page.context().close();
    }
  }

  it.each(['express', 'fastify'] as const)("%s: each customer signs in with the app's login and sees its own dashboard", async (name) => {
    const { server, url } = await startExample(consumerDir, name, { upstreamUrl: emulator!.url });
    try {
      await expectOwnDashboards(url);
    } finally {
      await server.stop();
    }
  });

  it('nextjs: builds, renders the React component on the server, hydrates with an empty console, and each customer sees its own dashboard', async () => {
    // Opened at 127.0.0.1 though Next.js builds the route handler's request.url with "localhost":
    // the BFF takes the browser's Sec-Fetch-Site, and the login redirects with a relative Location.
    const { server, url: base } = await startExample(consumerDir, 'nextjs', { upstreamUrl: emulator!.url });
    try {
      await expectOwnDashboards(base, async (page, customer) => {
        // onLoad ran: the handlers were attached by hydration.
        await page.waitForSelector('[data-testid="dashboard-status"]:has-text("Loaded in")', { timeout: 10_000 });
        // The dashboard's own event reaches the page (onCustomEvent): its JS Event Button, clicked in the frame.
        const dashboardFrame = await (await page.$('embedded-dashboard iframe'))!.contentFrame();
        await dashboardFrame!.click('[data-testid="js-event-button"]');
        const shown = page.locator('[data-testid="dashboard-events"] li', { hasText: /^exportRequested / });
        await shown.waitFor({ timeout: 10_000 });
        const text = (await shown.textContent())!;
        expect(JSON.parse(text.slice('exportRequested '.length))).toEqual({ customerName: customer.name, customerProvidedId: customer.id });
        // An array variable and a locale reach the dashboard: its multi-select filters by the array, it formats for de-DE.
        const frame = page.frames().find((f) => f.url().includes('/iframe/'))!;
        expect(new URL(frame.url()).searchParams.get('locale_code')).toBe('de-DE');
        await frame.waitForSelector('[data-testid="filter-summary"][data-chosen="EU,US"]', { timeout: 10_000 });
        expect(await frame.evaluate(() => document.body.dataset.locale)).toBe('de-DE');
      });
      // The server's HTML already carries the element with its attributes (no JavaScript needed to start it).
      const { page } = await signIn(base, CUSTOMERS[0]);
      const html = await (await page.context().request.get(`${base}/dashboard`)).text();
      expect(html).toMatch(
        /<embedded-dashboard dashboard="sales-overview" src-template="http:\/\/127\.0\.0\.1:\d+\/iframe\/\{dashboard\}" variables="\{&quot;region&quot;:&quot;EMEA&quot;,&quot;regions&quot;:\[&quot;EU&quot;,&quot;US&quot;\]\}" locale-code="de-DE" label="Sales overview">/,
      );
      await page.context().close();
    } finally {
      await server.stop();
    }
  });

  it("nextjs: the route handler with runtime = 'edge' is built for the edge runtime and serves the element's tokens and rotation", async () => {
    const { server, url: base } = await startExample(consumerDir, 'nextjs', { upstreamUrl: emulator!.url });
    try {
      // Next.js lists the routes it built for its edge sandbox (not Node) in the middleware manifest.
      const manifest = JSON.parse(readFileSync(join(consumerDir, 'examples/nextjs/.next/server/middleware-manifest.json'), 'utf8')) as {
        functions: Record<string, unknown>;
      };
      expect(Object.keys(manifest.functions)).toContain('/edge/embed/[...path]/route');
      const { page, errors } = await signIn(base, CUSTOMERS[0]);
      const edgeToken = page.waitForResponse((r) => new URL(r.url()).pathname === '/edge/embed/token');
      await page.goto(`${base}/dashboard?bff=edge`);
      expect((await edgeToken).status()).toBe(200);
      await waitForDashboardReady(page, errors);
      expect(await dashboardGroupName(page)).toBe(CUSTOMERS[0].name);
      const request = page.context().request;
      const post = (path: string, data: unknown, headers: Record<string, string> = {}) =>
        request.post(`${base}${path}`, { data, headers: { 'content-type': 'application/json', 'sec-fetch-site': 'same-origin', ...headers } });
      const { token } = (await (await post('/edge/embed/token', {})).json()) as { token: string };
      const rotated = await post('/edge/embed/token/rotate', { token });
      expect(rotated.status()).toBe(200);
      expect(((await rotated.json()) as { token: string }).token).not.toBe(token);
      expect((await post('/edge/embed/token', {}, { cookie: '' })).status()).toBe(401);
      expect((await post('/edge/embed/token', {}, { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' })).status()).toBe(403);
      expect(errors).toEqual([]);
      await page.context().close();
    } finally {
      await server.stop();
    }
  });
});
