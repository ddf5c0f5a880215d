/**
 * `<embedded-dashboard protocol="superset">` against the real Apache Superset 6.1.0, in each engine,
 * on host pages of ./superset-host.ts (the shipped standalone file, a real BFF per customer with
 * `supersetVendor` signing guest tokens of 30 s). One page holds two customers side by side and an
 * element of a dashboard whose embedded config does not allow the page's origin; its tests read it
 * (the refused origin, rows, height, the renewal past the first token's `exp` in the running
 * frames). A second page holds a customer whose claim is the hostile `x' OR '1'='1` and, as a
 * control, Superset's own `@superset-ui/embedded-sdk` as Acme.
 *
 * Most of an engine's time is waiting for the first tokens' `exp`, with nothing loading. So the
 * engines' pages load one after the other in the background (`loadPages`: Chromium's two pages,
 * then Firefox's, then WebKit's), each page once its predecessor's dashboards have rendered, and
 * each engine's tests read its own pages while the next engine's load: one page's two Superset
 * frames load at a time, as when the engines ran one after the other (with a third frame at once,
 * a frame often stayed blank within 45 s on this loaded two-core machine), and the waits overlap.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, type Engine, type EngineBrowser, type EngineContext, type EngineName, type FrameRef, type Tab } from '../support/browsers/index.js';
import type { SupersetManifest } from '../support/superset.js';
import { eventually, openEngineBrowser } from './harness.js';
import {
  allProducts,
  elementFrameHeight,
  eventsOf,
  frameOf,
  frameText,
  HOSTILE_CUSTOMER,
  markFrame,
  productsOf,
  runSuperset,
  startSupersetHost,
  stateOf,
  waitForTable,
  type SupersetHost,
} from './superset-host.js';

const superset = await runSuperset();
if (!superset) console.warn('*** SKIPPING test/e2e/superset.test.ts: no Apache Superset (see test/support/superset.ts) ***');

/** The guest tokens' lifetime: the BFF's shortest, so that one expires while the test watches. */
const TTL_SECONDS = 30;
/**
 * The lifetime of the guest tokens Superset's own SDK gets. The SDK fetches its first token when it
 * mounts and hands it over only at its frame's load event; Superset's embedded page checks the
 * first token it gets once (GET /api/v1/me/roles/) and, if that fails, shows "Something went wrong
 * with embedded authentication" for good (superset/static/assets/embedded.*.entry.js, 6.1.0). A
 * WebKit frame that took longer than 30 s to load on a loaded CI machine met that. The SDK renews
 * at max(10 s, exp - now) - 5 s after each hand-over (@superset-ui/embedded-sdk,
 * lib/guestTokenRefresh.js), so its second token is asked for at most SDK_TTL_SECONDS - 5 s after
 * the first one reached the frame.
 */
const SDK_TTL_SECONDS = 60;
const ELEMENTS = [
  { id: 'acme', customer: 'acme', dashboard: 'sales', attributes: 'refresh-margin="10"' },
  { id: 'globex', customer: 'globex', dashboard: 'sales', attributes: 'refresh-margin="10"' },
  // Renewed at exp − 5 s: after the element's report that its frame did not start (20 s after src), not in a race with it.
  { id: 'refused', customer: 'acme', dashboard: 'restricted', attributes: 'refresh-margin="5"' },
] as const;

type MarkedId = 'acme' | 'globex' | 'hostile';

/** An element's frame, marked when it appeared: `same()` while neither the iframe nor its document was replaced; `at` when. */
interface Mark {
  frame: FrameRef;
  same: () => Promise<boolean>;
  at: number;
}

/** What the refused element showed when it first turned to its error state (it reports again each time its frame is tried again, 40 s later and on). */
interface RefusedSnapshot {
  shown: string;
  errors: { detail: Record<string, unknown> }[];
  loads: unknown[];
}

/** One engine's two pages. */
interface EnginePages {
  browser: EngineBrowser;
  host: SupersetHost;
  control: SupersetHost;
  contexts: EngineContext[];
  tab: Tab;
  page: Tab;
  marks: Partial<Record<MarkedId, Mark>>;
  /** The main page's dashboards as rendered: a customer's table text. */
  texts: Partial<Record<'acme' | 'globex', string>>;
  /** The control page's dashboards as rendered. */
  hostileText: string;
  sdkFrame: FrameRef;
  sdkText: string;
  refused: Promise<RefusedSnapshot>;
}

const marked = async (on: Tab, id: MarkedId): Promise<Mark> => {
  const frame = await frameOf(on, id, 60_000);
  return { frame, same: await markFrame(on, frame, id), at: Date.now() };
};

/** A context of its own per page (WebKit's driver refused a second window in one context here), signed in, at `host`. */
async function openPage(browser: EngineBrowser, host: SupersetHost, contexts: EngineContext[]): Promise<Tab> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  contexts.push(context);
  await host.signIn(context);
  const tab = await context.newTab();
  await tab.goto(host.url);
  return tab;
}

/** Opens `engine`'s two pages, one after the other, each marked as soon as its frames appear and awaited until its dashboards have rendered. */
async function loadPages(engine: Engine, manifest: SupersetManifest, opened: EnginePages[]): Promise<EnginePages> {
  const [host, control, browser] = await Promise.all([
    startSupersetHost(manifest, { elements: ELEMENTS.map((e) => ({ ...e })), ttlSeconds: TTL_SECONDS }),
    // The SDK takes the first mount's token route: Acme's session, on the same page (no element of its own).
    startSupersetHost(manifest, {
      elements: [
        { id: 'acme', customer: 'acme', dashboard: 'sales', element: false, ttlSeconds: SDK_TTL_SECONDS },
        { id: 'hostile', customer: HOSTILE_CUSTOMER, dashboard: 'sales', attributes: 'refresh-margin="10"' },
      ],
      sdk: true,
      ttlSeconds: TTL_SECONDS,
    }),
    openEngineBrowser(engine),
  ]);
  const pages = { browser, host, control, contexts: [], marks: {}, texts: {} } as unknown as EnginePages;
  opened.push(pages);
  pages.tab = await openPage(browser, host, pages.contexts);
  // Marked before any renewal: "the same frame" after the renewals then means the running frame took them.
  [pages.marks.acme, pages.marks.globex] = await Promise.all([marked(pages.tab, 'acme'), marked(pages.tab, 'globex')]);
  pages.refused = (async () => {
    const tab = pages.tab;
    await eventually('the refused element in error', async () => (await stateOf(tab, 'refused')) === 'error', 45_000, 250);
    // The viewer reads the element's (localized) error text (rendered a moment after the state); the page's handler gets why.
    const shown = await eventually(
      "the refused element's error text",
      async () => {
        const text = await tab.evaluate(() => document.getElementById('el-refused')!.shadowRoot!.textContent ?? '');
        return /could not be loaded/.test(text) ? text : undefined;
      },
      10_000,
      100,
    ).catch(async () => tab.evaluate(() => document.getElementById('el-refused')!.shadowRoot!.textContent ?? ''));
    const [errors, loads] = await Promise.all([eventsOf(tab, 'refused', 'dashboard-error'), eventsOf(tab, 'refused', 'dashboard-load')]);
    return { shown, errors, loads };
  })();
  pages.refused.catch(() => undefined);
  for (const id of ['acme', 'globex'] as const) pages.texts[id] = await waitForTable(pages.marks[id]!.frame, id);

  pages.page = await openPage(browser, control, pages.contexts);
  [pages.marks.hostile, pages.sdkFrame] = await Promise.all([marked(pages.page, 'hostile'), frameOf(pages.page, 'sdk', 60_000)]);
  [pages.hostileText, pages.sdkText] = await Promise.all([waitForTable(pages.marks.hostile.frame, 'hostile'), waitForTable(pages.sdkFrame, 'sdk')]);
  return pages;
}

const available = engines().filter((engine) => engine.available);
const opened: EnginePages[] = [];
/** Each engine's pages, loading in turn from the file's start (one engine's failure does not hold up the next). */
const loading = new Map<EngineName, Promise<EnginePages>>();
if (superset) {
  let previous: Promise<unknown> = Promise.resolve();
  for (const engine of available) {
    const pages = previous.then(() => loadPages(engine, superset.manifest, opened));
    pages.catch(() => undefined);
    loading.set(engine.name, pages);
    previous = pages.catch(() => undefined);
  }
}
async function closePages(pages: EnginePages): Promise<void> {
  opened.splice(opened.indexOf(pages), 1);
  for (const context of pages.contexts) await context.close();
  await pages.browser.close();
  await pages.control.close();
  await pages.host.close();
}
afterAll(async () => {
  await Promise.allSettled(loading.values());
  for (const pages of [...opened]) await closePages(pages);
  await superset?.dispose();
});

describe.each(engines())('protocol="superset" against the real Superset in $name', (engine) => {
  const enabled = engine.available && !!superset;
  let manifest: SupersetManifest;
  let pages: EnginePages;
  /** The frames' heights once they took them (the last test checks they kept them). */
  const heights: Partial<Record<'acme' | 'globex', number>> = {};

  beforeAll(async () => {
    if (!enabled) return;
    manifest = superset.manifest;
    // Up to three engines' pages, one after the other, under load: a bound on a hung load, not a timed assertion.
    pages = await loading.get(engine.name)!;
  }, 300_000);
  // Closed once its tests are over: the next engine's pages load beside one engine's idle pages at most.
  afterAll(async () => {
    if (pages) await closePages(pages);
  });

  it.skipIf(!enabled)('a dashboard whose embedded config does not allow this origin is the error state with a clear message', async () => {
    const { shown, errors, loads } = await pages.refused;
    expect(shown).toMatch(/could not be loaded/);
    const [error, ...more] = errors;
    expect(more).toEqual([]);
    expect(error!.detail).toMatchObject({ code: 'frame_refused', retryable: false });
    expect(String(error!.detail.message)).toMatch(/allowed domains/);
    expect(loads).toEqual([]);
  });

  it.skipIf(!enabled)('two customers on one page each see only their own rows', async () => {
    const { tab, texts, host } = pages;
    // Loaded: ready, or already renewing its 30 s token (20 s after it came: on a loaded machine,
    // this engine's pages may have waited that long behind the previous engine's).
    for (const id of ['acme', 'globex'] as const) expect(['ready', 'refreshing']).toContain(await stateOf(tab, id));
    const all = allProducts(manifest);
    for (const customer of ['acme', 'globex'] as const) {
      const own = productsOf(manifest, customer);
      expect(own.length).toBeGreaterThan(0);
      for (const product of all) expect.soft(texts[customer]!.includes(product), `${customer} frame shows ${product}`).toBe(own.includes(product));
    }
    // Signed by the BFF: one first token per element.
    expect(host.answers.filter((a) => a.path.endsWith('/token') && a.status === 200).length).toBe(ELEMENTS.length);
  });

  it.skipIf(!enabled)('each frame takes its dashboard’s height (and keeps it: see the last test)', async () => {
    const { tab, marks } = pages;
    // The control page opened after this one: in Firefox it hid this one, whose elements then
    // (rightly) skip their height polls. A viewer looks at the page being measured.
    await tab.bringToFront();
    const reported = async (id: 'acme' | 'globex') => marks[id]!.frame.evaluate(() => document.body.scrollHeight);
    for (const id of ['acme', 'globex'] as const) {
      await eventually(`${id}'s frame at its dashboard's height`, async () => {
        const [height, body] = [await elementFrameHeight(tab, id), await reported(id)];
        return height > 150 && Math.abs(height - body) <= 2;
      });
    }
    // Kept through the next tests (the element polls its height once a second) and the renewal: the last test checks.
    heights.acme = await elementFrameHeight(tab, 'acme');
    heights.globex = await elementFrameHeight(tab, 'globex');
  });

  it.skipIf(!enabled)(
    'the hostile claim value sees no row; Superset’s own SDK beside it (as Acme) reaches the dashboard too, and only the element sizes its frame',
    async () => {
      const { page, control, marks, hostileText, sdkFrame: sdk, sdkText } = pages;
      await page.bringToFront();
      const element = marks.hostile!.frame;
      // The claim was quoted as one literal: no customer is named so, so no row at all.
      for (const product of allProducts(manifest)) expect(hostileText.includes(product), `hostile frame shows ${product}`).toBe(false);
      expect(hostileText).toMatch(/No results/i);
      const own = productsOf(manifest, 'acme');
      for (const product of allProducts(manifest)) expect(sdkText.includes(product), `sdk shows ${product}`).toBe(own.includes(product));
      const content = await sdk.evaluate(() => document.body.scrollHeight);
      const sdkHeight = await page.evaluate(() => document.querySelector('#sdk iframe')!.clientHeight);
      // No auto height in the SDK: its iframe keeps the browser's default 150 px, whatever the dashboard needs.
      expect(sdkHeight).toBe(150);
      expect(content).toBeGreaterThan(150);
      await eventually(
        "the element's frame at its dashboard's height",
        async () => Math.abs((await elementFrameHeight(page, 'hostile')) - (await element.evaluate(() => document.body.scrollHeight))) <= 2,
      );
      // Renewal: the SDK asks its fetchGuestToken again at exp − 5 s, the element at exp − refresh-margin; both into the running frame.
      const firstExp = Math.min(...control.answers.filter((a) => a.exp).map((a) => a.exp!));
      const renewedInFrame = () => control.answers.some((a) => a.status === 200 && a.path === '/embed-hostile/token/rotate' && a.at > marks.hostile!.at);
      // Until the first guest token has expired (Superset now refuses it), a little more, and the element renewed in its marked frame
      // (a frame slow to appear may have come after the first renewal: then the next one, 20 s later).
      await eventually(
        'the first guest token to expire, and a renewal in the running frame',
        async () => Date.now() > firstExp * 1000 + 2_000 && renewedInFrame(),
        (2 * TTL_SECONDS + 10) * 1000,
        500,
      );
      // The SDK's renewal follows its frame's load, not the first exp: it may still be due.
      await eventually(
        'Superset’s SDK to ask for its second guest token',
        async () => (await page.evaluate(() => (window as unknown as { __sdkTokens: number }).__sdkTokens)) >= 2,
        (SDK_TTL_SECONDS + 10) * 1000,
        500,
      );
      expect((await eventsOf(page, 'hostile', 'dashboard-token')).map((e) => e.detail.reason)).toContain('refresh');
      expect(await marks.hostile!.same()).toBe(true);
      // Ready again: a renewal of its 20 s cycle may be in flight when this is read (refreshing).
      await eventually('the hostile page’s element ready', async () => (await stateOf(page, 'hostile')) === 'ready');
      // Still no row after the renewal.
      expect(await frameText(element)).not.toContain(own[0]);
    },
    120_000,
  );

  it.skipIf(!enabled)(
    'renews the guest tokens in the running frames before they expire, and runs on past the first exp at the same heights',
    async () => {
      const { tab, host, marks } = pages;
      await tab.bringToFront();
      const firstExp = Math.min(...host.answers.filter((a) => a.exp).map((a) => a.exp!));
      const renewedInFrame = (id: 'acme' | 'globex') =>
        host.answers.some((a) => a.status === 200 && a.path === `/embed-${id}/token/rotate` && a.at > marks[id]!.at);
      // Until the first guest token has expired (Superset now refuses it), a little more, and each running element (refresh-margin
      // 10 s) renewed in its marked frame (a frame slow to appear may have come after the first renewal: then the next one).
      await eventually(
        'the first guest token to expire, and a renewal in each running frame',
        async () => Date.now() > firstExp * 1000 + 2_000 && renewedInFrame('acme') && renewedInFrame('globex'),
        (2 * TTL_SECONDS + 10) * 1000,
        500,
      );
      // Before the first exp, not after it: renewed ahead of expiry.
      for (const id of ['acme', 'globex'] as const) {
        expect(
          host.answers.some((a) => a.status === 200 && a.path === `/embed-${id}/token/rotate` && a.at < firstExp * 1000),
          `${id} renewed before the first exp`,
        ).toBe(true);
      }
      expect(await marks.acme!.same()).toBe(true);
      expect(await marks.globex!.same()).toBe(true);
      const [initial, ...renewed] = (await eventsOf(tab, 'acme', 'dashboard-token')).map((e) => e.detail.reason);
      expect(initial).toBe('initial');
      expect(renewed.length).toBeGreaterThan(0);
      expect(renewed.every((reason) => reason === 'refresh')).toBe(true);
      expect(await stateOf(tab, 'refused')).toBe('error');
      for (const id of ['acme', 'globex'] as const) {
        // Ready (a renewal of its 20 s cycle may be in flight when read: refreshing, then ready).
        await eventually(`${id}'s element ready`, async () => (await stateOf(tab, id)) === 'ready');
        expect(await frameText(marks[id]!.frame)).toContain(productsOf(manifest, id)[0]);
        // Dozens of the element's height polls and renewals later, the frames have not grown on.
        expect(await elementFrameHeight(tab, id)).toBe(heights[id]);
      }
    },
    120_000,
  );
});
