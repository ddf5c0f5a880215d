/**
 * The driver interface (test/support/browsers) keeps its promises in every engine: evaluate in
 * the page and in a cross-origin frame inside a shadow root, trusted clicks and keys, viewport,
 * cookies, isolated contexts and tabs that share one. The scenarios rely on each of these.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, poll, type EngineBrowser } from '../support/browsers/index.js';
import { openEngineBrowser } from './harness.js';

const listen = async (server: Server): Promise<string> => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

/** The page: a button that counts trusted clicks, a field, and a cross-origin frame in a shadow root. */
const page = (frameOrigin: string) => `<!doctype html><title>driver</title>
<button id="b" onclick="window.clicks = (window.clicks || 0) + (event.isTrusted ? 1 : 100)">click</button>
<input id="field" onkeydown="window.keys = (window.keys || '') + event.key">
<div id="host"></div>
<script>
  const root = document.getElementById('host').attachShadow({ mode: 'open' });
  root.innerHTML = '<iframe src="${frameOrigin}/frame" width="300" height="200"></iframe>';
</script>`;

/** The frame: a strict CSP (only its own nonce'd script), as the vendor's dashboard page has. */
const FRAME = `<!doctype html><title>frame</title><button id="inner">inner</button><script nonce="n0nce">
  window.secret = 'frame-' + location.port;
  document.getElementById('inner').addEventListener('click', (event) => (window.inner = event.isTrusted));
</script><script>window.unnonced = true</script>`;

describe.each(engines())('the $name driver', (engine) => {
  let browser: EngineBrowser;
  let top: Server;
  let other: Server;
  let url: string;
  let frameOrigin: string;

  beforeAll(async () => {
    other = createServer((req, res) =>
      res.writeHead(200, { 'content-type': 'text/html', 'content-security-policy': "default-src 'none'; script-src 'nonce-n0nce'" }).end(FRAME),
    );
    frameOrigin = (await listen(other)).replace('127.0.0.1', 'localhost');
    top = createServer((req, res) => {
      // Any other path: 404 without a cookie (WebKit reads and sets cookies from such a page of the origin).
      if (req.url !== '/') return void res.writeHead(404, { 'content-type': 'text/html' }).end('<title>missing</title>');
      res.writeHead(200, { 'content-type': 'text/html', 'set-cookie': 'seen=1; Path=/; HttpOnly' }).end(page(frameOrigin));
    });
    url = await listen(top);
    if (engine.available) browser = await openEngineBrowser(engine);
  });
  afterAll(async () => {
    await browser?.close();
    top?.closeAllConnections();
    other?.closeAllConnections();
    await Promise.all([new Promise((resolve) => top?.close(resolve)), new Promise((resolve) => other?.close(resolve))]);
  });

  it.skipIf(!engine.available)('evaluates in the page and in the cross-origin frame of a shadow root, clicks and types as a user', async () => {
    const context = await browser.newContext({ viewport: { width: 800, height: 600 } });
    try {
      const tab = await context.newTab();
      expect(await tab.goto(url)).toBe(browser.supports.navigationStatus ? 200 : 0);
      expect(await tab.url()).toBe(`${url}/`);
      expect(await tab.evaluate(() => [innerWidth, innerHeight])).toEqual([800, 600]);
      expect(await tab.evaluate(async (n: number) => n * 2, 21)).toBe(42);
      await expect(tab.evaluate(() => Promise.reject(new Error('refused here')))).rejects.toThrow(/refused here/);

      const frame = await tab.frame((u) => u.startsWith(frameOrigin));
      expect(await frame.url()).toBe(`${frameOrigin}/frame`);
      expect(await frame.evaluate(() => (window as unknown as { secret: string }).secret)).toBe(`frame-${new URL(frameOrigin).port}`);
      expect(await tab.frames()).toHaveLength(1);
      // A library injected past the frame's CSP (no eval allowed there), its global on window.
      await frame.evaluateScript('(function (w) { w.injected = { answer: 42 }; })(typeof window === "object" ? window : this);');
      expect(await frame.evaluate(() => (window as unknown as { injected: { answer: number } }).injected.answer)).toBe(42);
      // (The CSP is in force: the frame's script without the nonce did not run.)
      expect(await frame.evaluate(() => 'unnonced' in window)).toBe(false);

      await tab.click('#b');
      expect(await tab.evaluate(() => (window as unknown as { clicks: number }).clicks)).toBe(1);
      await frame.click('#inner');
      expect(await frame.evaluate(() => (window as unknown as { inner: boolean }).inner)).toBe(true);
      await tab.click('#field');
      await tab.press('Enter');
      expect(await tab.evaluate(() => (window as unknown as { keys: string }).keys)).toBe('Enter');

      const narrow = Math.max(browser.supports.minViewportWidth, 480);
      await tab.setViewport({ width: narrow, height: 700 });
      expect(await tab.evaluate(() => [innerWidth, innerHeight])).toEqual([narrow, 700]);
      expect(await tab.goto(`${url}/missing`)).toBe(browser.supports.navigationStatus ? 404 : 0);
    } finally {
      await context.close();
    }
  });

  it.skipIf(!engine.available)('keeps contexts apart and lets the tabs of one context share cookies and BroadcastChannel', async () => {
    const [first, second] = [await browser.newContext(), await browser.newContext()];
    try {
      const a = await first.newTab();
      await a.goto(url);
      expect((await first.cookies(url)).map((c) => [c.name, c.value, c.httpOnly])).toEqual([['seen', '1', true]]);
      expect(await second.cookies(url)).toEqual([]);
      await second.setCookie(url, 'mine', 'two');
      expect((await second.cookies(url)).map((c) => c.name)).toEqual(['mine']);
      expect((await first.cookies(url)).map((c) => c.name)).toEqual(['seen']);

      // A second tab of the first context hears the first on a BroadcastChannel; the other context does not.
      const b = await first.newTab();
      await b.goto(url);
      const c = await second.newTab();
      await c.goto(url);
      const listen = () => {
        const heard: string[] = [];
        (window as unknown as { heard: string[] }).heard = heard;
        new BroadcastChannel('drivers').onmessage = (event) => heard.push(String(event.data));
      };
      await b.evaluate(listen);
      await c.evaluate(listen);
      await a.evaluate(() => new BroadcastChannel('drivers').postMessage('hello'));
      await poll('the other tab to hear it', () => b.evaluate(() => (window as unknown as { heard: string[] }).heard.length === 1));
      // Give a leak the same time to show.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await c.evaluate(() => (window as unknown as { heard: string[] }).heard)).toEqual([]);
      await b.close();
      expect(await a.evaluate(() => document.title)).toBe('driver');
    } finally {
      await first.close();
      await second.close();
    }
  });
});
