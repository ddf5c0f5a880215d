import { SignJWT } from 'jose';
import type { Browser, Frame, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MetabaseEmbedError, parseMetabaseFrameMessage } from '@embedded-dashboard/protocol';
import { DEFAULT_METABASE_SECRET, startMetabaseEmulator, type RunningMetabaseEmulator } from '@embedded-dashboard/emulator';
import { launchChromium } from '../support/chromium.js';
import { startLoopbackServer, type LoopbackServer } from '../support/loopback-server.js';
import { chromiumTool } from '../support/tools.js';

/**
 * The emulator's Metabase frame script in Chromium (the part no request-level test can check): the
 * hash options acted on, the rows of the token's customer only, an editable parameter's widget
 * rewriting the query string, a page value for a locked parameter refused, the error page, and the
 * `frame` and `location` messages posted to the parent with target "*" (what the element's Metabase
 * protocol reads). One browser, one host page, a frame per scenario.
 */

const chromium = chromiumTool();
const HOST_PAGE = `<!doctype html><meta charset="utf-8"><title>host</title><body>
<iframe id="frame" style="width:800px;height:400px;border:0"></iframe>
<script>
window.messages = [];
window.addEventListener('message', (event) => {
  const frame = document.getElementById('frame');
  if (event.source === frame.contentWindow) window.messages.push({ origin: event.origin, data: event.data });
});
window.openFrame = (src) => { window.messages = []; document.getElementById('frame').src = src; };
</script></body>`;

let browser: Browser | undefined;
let host: LoopbackServer | undefined;
let mb: RunningMetabaseEmulator | undefined;
let page: Page | undefined;
beforeAll(async () => {
  if (!chromium.available) return;
  [browser, host, mb] = await Promise.all([
    launchChromium(chromium.path),
    startLoopbackServer((_, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(HOST_PAGE)),
    startMetabaseEmulator({ port: 0 }),
  ]);
  page = await browser.newPage();
  await page.goto(`${host.url}/`);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await host?.close();
  await mb?.close();
});

const sign = (customer: string) =>
  new SignJWT({ resource: { dashboard: 1 }, params: { customer_id: [customer] }, exp: Math.round(Date.now() / 1000) + 600 })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .sign(new TextEncoder().encode(DEFAULT_METABASE_SECRET));

async function open(src: string): Promise<Frame> {
  await page!.evaluate((s) => (window as unknown as { openFrame(s: string): void }).openFrame(s), src);
  const frame = page!.frames().find((f) => f !== page!.mainFrame())!;
  await frame.waitForURL(src);
  await frame.waitForFunction(() => document.body?.dataset.state === 'loaded' || document.body?.dataset.state === 'error', undefined, { timeout: 30_000 });
  return frame;
}
const messages = () => page!.evaluate(() => (window as unknown as { messages: { origin: string; data: unknown }[] }).messages);
const customersIn = (frame: Frame) => frame.$$eval('tr[data-customer]', (rows) => rows.map((row) => (row as HTMLElement).dataset.customer));

describe.skipIf(!chromium.available)('the Metabase frame (emulator) in Chromium', () => {
  it('acts on the hash options, shows the token’s customer only, and posts frame and location messages', async () => {
    const src = `${mb!.url}/embed/dashboard/${await sign('globex')}#theme=night&titled=false&bordered=false&refresh=1&locale=de&downloads=false`;
    const frame = await open(src);
    expect(new Set(await customersIn(frame))).toEqual(new Set(['globex']));
    const look = await frame.evaluate(() => ({
      theme: document.documentElement.dataset.embedTheme,
      lang: document.documentElement.lang,
      titleHidden: document.getElementById('title')!.hidden,
      bordered: document.getElementById('frame')!.dataset.bordered,
      download: document.getElementById('download')!.hidden,
      total: document.querySelector('.scalar')!.textContent,
    }));
    expect(look).toEqual({ theme: 'night', lang: 'de', titleHidden: true, bordered: 'false', download: true, total: '1.250' });
    // refresh=1: the cards load again every second.
    await frame.waitForFunction(() => Number(document.body.dataset.loads) >= 2, undefined, { timeout: 10_000 });

    await page!.waitForFunction(() =>
      (window as unknown as { messages: { data: { metabase?: { type: string } } }[] }).messages.some((m) => m.data.metabase?.type === 'frame'),
    );
    const seen = (await messages()).map((m) => ({ origin: m.origin, message: parseMetabaseFrameMessage(m.data) }));
    expect(seen.every((m) => m.origin === mb!.url && m.message !== undefined)).toBe(true);
    const location = seen.find((m) => m.message!.metabase.type === 'location')!.message!.metabase as { location: Record<string, string> };
    expect(location.location.href).toBe(src);
    const sizes = seen
      .filter((m) => m.message!.metabase.type === 'frame')
      .map((m) => (m.message!.metabase as { frame: { mode: string; height: number } }).frame);
    const scrollHeight = await frame.evaluate(() => document.body.scrollHeight);
    expect(sizes.at(-1)).toEqual({ mode: 'normal', height: scrollHeight });
  });

  it('takes an editable parameter from its widget (a new location), and refuses a page value for the locked one', async () => {
    const token = await sign('acme');
    const frame = await open(`${mb!.url}/embed/dashboard/${token}?region=north`);
    expect(await frame.$$eval('tr[data-customer] td:nth-child(3)', (cells) => cells.map((c) => c.textContent))).toEqual(['anvil', 'magnet']);
    await frame.fill('input[name=region]', 'south');
    await frame.dispatchEvent('input[name=region]', 'change');
    await frame.waitForFunction(() => document.querySelector('tr[data-customer] td:nth-child(3)')?.textContent === 'rocket');
    await page!.waitForFunction(() =>
      (window as unknown as { messages: { data: { metabase?: { type: string; location?: { search?: string } } } }[] }).messages.some(
        (m) => m.data.metabase?.location?.search === '?region=south',
      ),
    );

    const unlocked = await open(`${mb!.url}/embed/dashboard/${token}?customer_id=globex`);
    expect(await customersIn(unlocked)).toEqual([]);
    expect(await unlocked.$eval('section.card', (card) => (card as HTMLElement).dataset.error)).toBe(MetabaseEmbedError.lockedFromPage('customer_id'));
  });

  it('shows the error page for a refused token', async () => {
    const frame = await open(`${mb!.url}/embed/dashboard/${(await sign('acme')).slice(0, -2)}xx#titled=true`);
    expect(
      await frame.evaluate(() => [
        document.body.dataset.state,
        document.getElementById('error-title')?.textContent,
        document.getElementById('error-message')?.textContent,
      ]),
    ).toEqual(['error', 'An error occurred', MetabaseEmbedError.corrupt]);
  });
});
