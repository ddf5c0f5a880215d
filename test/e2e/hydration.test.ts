import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createElement } from 'react';
import { renderToString } from 'react-dom/server';
import { build } from 'vite';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UserGroupClient } from '@embedded-dashboard/client';
import { startEmulator, type RunningEmulator } from '@embedded-dashboard/emulator';
import { createBffApp, createBffNodeListener } from '@embedded-dashboard/bff';
import { chromiumTool } from '../support/tools.js';
import { HydrationApp } from './hydration/app.js';
import { eventually, openBrowser, signAcmeSession } from './chromium-harness.js';

const tool = chromiumTool();
const SECRET = 'hydration-test-session-secret-0123456789';
const source = (path: string) => fileURLToPath(new URL(`../../packages/${path}`, import.meta.url));

/** The browser half: React 19's development build (it is the one that reports mismatches) and the element from source. */
async function buildClient(outDir: string): Promise<string> {
  await build({
    configFile: false,
    logLevel: 'warn',
    mode: 'development',
    define: { 'process.env.NODE_ENV': '"development"' },
    resolve: {
      // Lit's production build (its development build warns on the console by design).
      conditions: ['module', 'browser', 'production'],
      alias: [
        { find: '@embedded-dashboard/protocol', replacement: source('protocol/src/index.ts') },
        { find: '@embedded-dashboard/element', replacement: source('element/src/index.ts') },
      ],
    },
    build: {
      outDir,
      emptyOutDir: true,
      minify: false,
      lib: { entry: fileURLToPath(new URL('./hydration/client.ts', import.meta.url)), formats: ['es'], fileName: () => 'client.js' },
    },
  });
  return readFileSync(join(outDir, 'client.js'), 'utf8');
}

describe.skipIf(!tool.available)('React 19: server-rendered, then hydrated in Chromium', () => {
  let browser: Browser;
  let emulator: RunningEmulator;
  let client: UserGroupClient;
  let server: Server;
  let url: string;
  const outDir = mkdtempSync(join(tmpdir(), 'hydration-'));

  beforeAll(async () => {
    const [script, emu, chromium] = await Promise.all([buildClient(outDir), startEmulator({ port: 0 }), openBrowser(tool.path)]);
    emulator = emu;
    browser = chromium;
    client = new UserGroupClient({ baseUrl: emulator.url, apiToken: 'dev-customer-key' });
    const bff = createBffNodeListener(
      createBffApp({ upstream: client, session: { secret: SECRET, cookie: 'sid' }, logger: { debug() {}, info() {}, warn() {}, error() {} } }),
    );
    const props = { srcTemplate: `${emulator.url}/iframe/{dashboard}` };
    server = createServer((req, res) => {
      if (req.url?.startsWith('/embed/')) return void bff(req, res);
      if (req.url === '/client.js') return void res.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
      const markup = renderToString(createElement(HydrationApp, props));
      res
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end(
          `<!doctype html><html><head><title>hydration</title></head><body><div id="root">${markup}</div>` +
            `<script>window.__hydrationProps = ${JSON.stringify(props)}</script><script type="module" src="/client.js"></script></body></html>`,
        );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
    client?.close();
    await emulator?.close();
    rmSync(outDir, { recursive: true, force: true });
  });

  it('hydrates with zero console errors or warnings, and the element still loads and follows React', async () => {
    const context = await browser.newContext();
    try {
      const jwt = await signAcmeSession(SECRET);
      await context.addCookies([{ name: 'sid', value: jwt, url }]);
      const page = await context.newPage();
      const console: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error' || message.type() === 'warning') console.push(`${message.type()}: ${message.text()}`);
      });
      page.on('pageerror', (error) => console.push(`pageerror: ${error.message}`));
      await page.goto(url);
      const serverHtml = await (await fetch(url)).text();
      expect(serverHtml).toContain('<embedded-dashboard dashboard="sales-overview"');
      await eventually('hydration', () => page.evaluate(() => window.__hydrated === true));
      await eventually('the element to be ready', async () => (await page.locator('embedded-dashboard').getAttribute('state')) === 'ready');
      await page.click('#switch');
      await eventually('the element to show the other dashboard', async () =>
        ((await page.locator('embedded-dashboard iframe').getAttribute('src')) ?? '').includes('/iframe/support-metrics'),
      );
      await eventually('the element to be ready again', async () => (await page.locator('embedded-dashboard').getAttribute('state')) === 'ready');
      expect(console).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
