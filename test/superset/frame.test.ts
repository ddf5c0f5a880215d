import type { Frame, Page } from 'playwright-core';
import { describe, expect, inject, it } from 'vitest';
import { SUPERSET_CSRF_HEADER, SUPERSET_ROUTES } from '@embedded-dashboard/protocol';
import { SAMPLE_SUPERSET_DASHBOARDS } from '@embedded-dashboard/emulator';
import { chromiumTool } from '../support/tools.js';
import { useBrowserHost } from './browser-host.js';

/**
 * The embedded page's frame protocol, the same host script against the real Superset 6.1.0 frame
 * and the emulator's: the `__embedded_comms__` port transfer, the `guestToken` emit that renders
 * the dashboard with the customer's rows only, the switchboard's answers (getScrollSize,
 * getActiveTabs, getDataMask, an undefined method's error), in Chromium. What differs between the
 * two is recorded here, not hidden.
 */

const real = inject('superset');
const chromium = chromiumTool();
if (!real) console.warn('*** SKIPPING the real-Superset half of test/superset/frame.test.ts: no Superset ***');

interface FrameTarget {
  url: string;
  uuid: string;
  mint(clause: string): Promise<string>;
}

async function mintWith(url: string, username: string, password: string, uuid: string, clause: string): Promise<string> {
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(url + path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const { access_token } = (await (await post(SUPERSET_ROUTES.login, { username, password, provider: 'db' })).json()) as { access_token: string };
  const csrf = await fetch(url + SUPERSET_ROUTES.csrfToken, { headers: { authorization: `Bearer ${access_token}` } });
  const cookie = csrf.headers.getSetCookie()[0]!.split(';')[0]!;
  const { result } = (await csrf.json()) as { result: string };
  const answer = await post(
    SUPERSET_ROUTES.guestToken,
    { user: { username: 'frame-test' }, resources: [{ type: 'dashboard', id: uuid }], rls: [{ clause }] },
    {
      authorization: `Bearer ${access_token}`,
      [SUPERSET_CSRF_HEADER]: result,
      cookie,
    },
  );
  return ((await answer.json()) as { token: string }).token;
}

/** The host page: frames the dashboard and exposes the switchboard's `get`/`emit` over the handed-over port. */
const HOST_PAGE = `<!doctype html><meta charset="utf-8"><title>host</title><body>
<iframe id="frame" style="width:800px;height:600px;border:0"></iframe>
<script>
let port;
let seq = 0;
const pending = new Map();
window.observed = [];
window.openFrame = (src) => new Promise((resolve) => {
  const frame = document.getElementById('frame');
  frame.addEventListener('load', () => {
    const channel = new MessageChannel();
    port = channel.port1;
    port.onmessage = (event) => {
      const m = event.data;
      if (m.switchboardAction === 'reply' || m.switchboardAction === 'error') {
        pending.get(m.messageId)?.(m);
        pending.delete(m.messageId);
      } else if (m.switchboardAction === 'get') {
        // What the SDK's host switchboard does: resolvePermalinkUrl answers null (the frame's own
        // URL), any other method is not defined here.
        window.observed.push(m);
        port.postMessage(m.method === 'resolvePermalinkUrl'
          ? { switchboardAction: 'reply', messageId: m.messageId, result: null }
          : { switchboardAction: 'error', messageId: m.messageId, error: '[host] Method "' + m.method + '" is not defined' });
      } else if (m.switchboardAction === 'emit') window.observed.push(m);
    };
    frame.contentWindow.postMessage({ type: '__embedded_comms__', handshake: 'port transfer' }, new URL(src).origin, [channel.port2]);
    resolve();
  }, { once: true });
  frame.src = src;
});
window.emit = (method, args) => port.postMessage({ switchboardAction: 'emit', method, args });
window.get = (method, args) => new Promise((resolve) => {
  const messageId = 'm_' + method + '_' + seq++;
  pending.set(messageId, resolve);
  setTimeout(() => pending.has(messageId) && resolve({ switchboardAction: 'no answer within 20 s', messageId }), 20000);
  port.postMessage({ switchboardAction: 'get', method, messageId, args });
});
</script></body>`;

const shared = useBrowserHost(chromium, (_, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(HOST_PAGE));

const targets: { name: string; skip: boolean; target: () => FrameTarget }[] = [
  {
    name: 'real Superset 6.1.0',
    skip: !real || !chromium.available,
    target: () => ({
      url: real!.url,
      uuid: real!.dashboards.sales.uuid,
      mint: (clause) => mintWith(real!.url, real!.serviceAccount.username, real!.serviceAccount.password, real!.dashboards.sales.uuid, clause),
    }),
  },
  {
    name: 'emulator (Superset mode)',
    skip: !chromium.available,
    target: () => ({
      url: shared.emulator!.url,
      uuid: SAMPLE_SUPERSET_DASHBOARDS[0]!.uuid,
      mint: (clause) => mintWith(shared.emulator!.url, 'embed-service', 'embed-service-password', SAMPLE_SUPERSET_DASHBOARDS[0]!.uuid, clause),
    }),
  },
];

const frameOf = (page: Page): Frame => page.frames().find((frame) => frame !== page.mainFrame())!;

describe.each(targets)('the embedded frame: $name', ({ skip, target }) => {
  it.skipIf(skip)(
    'takes the port, renders the customer’s rows only after the guestToken emit, and answers the switchboard',
    async () => {
      const t = target();
      const page = await shared.browser!.newPage();
      try {
        await page.goto(shared.hostUrl);
        await page.evaluate((src) => (window as unknown as { openFrame(s: string): Promise<void> }).openFrame(src), `${t.url}/embedded/${t.uuid}?uiConfig=16`);
        const token = await t.mint("customer_id = 'acme'");
        await page.evaluate((guestToken) => (window as unknown as { emit(m: string, a: unknown): void }).emit('guestToken', { guestToken }), token);
        const frame = frameOf(page);
        // The rendered dashboard: acme's products, no other customer's.
        await frame.waitForFunction(() => document.body.innerText.includes('anvil'), undefined, { timeout: 90_000 });
        const text = await frame.evaluate(() => document.body.innerText);
        expect(text).toContain('rocket');
        for (const other of ['reactor', 'turbine', 'stapler', 'ticket']) expect(text).not.toContain(other);

        const get = (method: string, args?: unknown) =>
          page.evaluate(
            ([m, a]) =>
              (window as unknown as { get(m: unknown, a: unknown): Promise<{ switchboardAction: string; result?: unknown; error?: string }> }).get(m, a),
            [method, args] as const,
          );
        const size = await get('getScrollSize');
        expect(size.switchboardAction).toBe('reply');
        const { width, height } = size.result as { width: number; height: number };
        // Before Superset PR #44313 the answer is the body's scroll size: at least the frame's own height.
        expect(height).toBeGreaterThanOrEqual(600);
        expect(width).toBeGreaterThan(0);
        expect(await get('getActiveTabs')).toMatchObject({ switchboardAction: 'reply', result: [] });
        expect(await get('getDataMask')).toMatchObject({ switchboardAction: 'reply' });
        expect(await get('noSuchMethod')).toEqual({
          switchboardAction: 'error',
          messageId: expect.any(String),
          error: '[superset] Method "noSuchMethod" is not defined',
        });
        const permalink = await get('getDashboardPermalink', { anchor: '' });
        expect(permalink.switchboardAction, JSON.stringify(permalink)).toBe('reply');
        expect(permalink.result).toMatch(new RegExp(`^${t.url}/superset/dashboard/p/[\\w-]+/$`));

        // A later guestToken emit swaps the token in the running frame: the same document, no reload.
        await frame.evaluate(() => ((window as unknown as { marker: string }).marker = 'same document'));
        const next = await t.mint("customer_id = 'acme'");
        await page.evaluate((guestToken) => (window as unknown as { emit(m: string, a: unknown): void }).emit('guestToken', { guestToken }), next);
        expect(await get('getScrollSize')).toMatchObject({ switchboardAction: 'reply' });
        expect(await frame.evaluate(() => (window as unknown as { marker?: string }).marker)).toBe('same document');
        expect(frameOf(page)).toBe(frame);
      } finally {
        await page.close();
      }
    },
    150_000,
  );

  it.skipIf(skip)(
    'hides the title with the uiConfig bit 1',
    async () => {
      const t = target();
      const page = await shared.browser!.newPage();
      try {
        await page.goto(shared.hostUrl);
        await page.evaluate((src) => (window as unknown as { openFrame(s: string): Promise<void> }).openFrame(src), `${t.url}/embedded/${t.uuid}?uiConfig=1`);
        const token = await t.mint("customer_id = 'globex'");
        await page.evaluate((guestToken) => (window as unknown as { emit(m: string, a: unknown): void }).emit('guestToken', { guestToken }), token);
        const frame = frameOf(page);
        await frame.waitForFunction(() => document.body.innerText.includes('reactor'), undefined, { timeout: 90_000 });
        const text = await frame.evaluate(() => document.body.innerText);
        expect(text).not.toMatch(/^Sales$/m);
        expect(text).not.toContain('anvil');
      } finally {
        await page.close();
      }
    },
    150_000,
  );
});

// The emulator's own addition, so one target only.
describe('the emulator frame', () => {
  it.skipIf(!chromium.available)(
    "emits observeDataMask on a filter change with uiConfig bit 16 (the emulator's region filter: the real sample dashboard has no native filter)",
    async () => {
      const t = targets[1]!.target();
      const page = await shared.browser!.newPage();
      try {
        await page.goto(shared.hostUrl);
        await page.evaluate((src) => (window as unknown as { openFrame(s: string): Promise<void> }).openFrame(src), `${t.url}/embedded/${t.uuid}?uiConfig=16`);
        const token = await t.mint("customer_id = 'initech'");
        await page.evaluate((guestToken) => (window as unknown as { emit(m: string, a: unknown): void }).emit('guestToken', { guestToken }), token);
        const frame = frameOf(page);
        await frame.waitForFunction(() => document.body.dataset.state === 'loaded');
        await frame.selectOption('#region', 'east');
        await page.waitForFunction(() => (window as unknown as { observed: { method: string }[] }).observed.some((m) => m.method === 'observeDataMask'));
        const observed = await page.evaluate(() =>
          (window as unknown as { observed: { method: string; args: Record<string, unknown> }[] }).observed.find((m) => m.method === 'observeDataMask'),
        );
        expect(observed!.args).toMatchObject({
          nativeFiltersChanged: true,
          crossFiltersChanged: false,
          'NATIVE_FILTER-region': { filterState: { value: ['east'] } },
        });
        await frame.waitForFunction(() => document.body.dataset.state === 'loaded' && !document.body.innerText.includes('stapler'));
        expect(await frame.evaluate(() => document.body.innerText)).toContain('printer');
      } finally {
        await page.close();
      }
    },
    60_000,
  );

  it.skipIf(!chromium.available)('ignores malformed handshakes and port messages, and renders nothing without a string guestToken', async () => {
    const t = targets[1]!.target();
    const page = await shared.browser!.newPage();
    try {
      await page.goto(shared.hostUrl);
      await page.evaluate((src) => {
        const frame = document.getElementById('frame') as HTMLIFrameElement;
        return new Promise<void>((resolve) => {
          frame.addEventListener('load', () => resolve(), { once: true });
          frame.src = src;
        });
      }, `${t.url}/embedded/${t.uuid}`);
      const frame = frameOf(page);
      const answers = await page.evaluate(async (origin) => {
        const target = (document.getElementById('frame') as HTMLIFrameElement).contentWindow!;
        // No port, a wrong type, not an object: ignored.
        target.postMessage({ type: '__embedded_comms__', handshake: 'port transfer' }, origin);
        const stray = new MessageChannel();
        target.postMessage({ type: 'something else', handshake: 'port transfer' }, origin, [stray.port2]);
        target.postMessage('__embedded_comms__', origin);
        const channel = new MessageChannel();
        const seen: unknown[] = [];
        channel.port1.onmessage = (event) => seen.push(event.data);
        target.postMessage({ type: '__embedded_comms__', handshake: 'port transfer' }, origin, [channel.port2]);
        const send = (message: unknown) => channel.port1.postMessage(message);
        for (const junk of [
          null,
          42,
          'get',
          [],
          { switchboardAction: 'get' },
          { switchboardAction: 'get', method: 'getScrollSize', messageId: 7 },
          { switchboardAction: 'reply', messageId: 'x', result: 1 },
        ])
          send(junk);
        send({ switchboardAction: 'emit', method: 'guestToken', args: { guestToken: 12 } });
        send({ switchboardAction: 'emit', method: 'guestToken' });
        send({ switchboardAction: 'get', method: '__proto__', messageId: 'p' });
        send({ switchboardAction: 'get', method: 'getScrollSize', messageId: 'ok', args: 'x'.repeat(100_000) });
        // The two answers (bounded: a loaded machine), then a moment more for any answer to the junk.
        for (const until = Date.now() + 10_000; seen.length < 2 && Date.now() < until;) await new Promise((resolve) => setTimeout(resolve, 50));
        await new Promise((resolve) => setTimeout(resolve, 500));
        return seen;
      }, new URL(t.url).origin);
      // Only the well-formed gets are answered; the stray port got nothing.
      expect(answers).toEqual([
        { switchboardAction: 'error', messageId: 'p', error: '[superset] Method "__proto__" is not defined' },
        { switchboardAction: 'reply', messageId: 'ok', result: { width: expect.any(Number), height: expect.any(Number) } },
      ]);
      expect(await frame.evaluate(() => document.body.dataset.state)).toBe('waiting');
    } finally {
      await page.close();
    }
  });
});
