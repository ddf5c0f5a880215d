/**
 * `<embedded-dashboard protocol="metabase">` against the emulator's Metabase mode (guest embeds as
 * Metabase serves and verifies them) behind a real BFF signing the guest tokens from the session
 * (`EMBED_VENDOR=metabase`, `customer_id` locked to `{org_id}`), in each engine, on one host page
 * (./metabase-host.ts, the shipped standalone file) holding the scenarios that do not interfere:
 * Acme and Globex side by side (Acme with an editable parameter set), a page trying to set the
 * locked parameter through `variables`, a dashboard the BFF does not embed, and a question
 * (`chart="3"`, Globex's). Its tests read the page in order: rows, height, the question, the locked
 * parameter (and a hand-edited frame URL), the refusal,
 * and Acme's renewal, forty seconds in (the protocol's renewal rule: `refresh-margin` 50 s, at most
 * a third of a 60 s token's lifetime). The engines' pages open at once and their renewals overlap.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, type Engine, type EngineBrowser, type EngineContext, type EngineName, type FrameRef, type Tab } from '../support/browsers/index.js';
import { eventually, openEngineBrowser } from './harness.js';
import {
  answeredView,
  elementFrameHeight,
  eventsOf,
  frameAt,
  frameView,
  startMetabaseHost,
  stateOf,
  viewOf,
  visibleSrc,
  type MetabaseHost,
} from './metabase-host.js';

/**
 * The guest tokens' lifetime. Acme renews 40 s in (`refresh-margin` 50 s, which the renewal rule
 * caps at a third of the lifetime: packages/protocol/src/renewal.ts): one renewal lands while the
 * file runs, the next not before its new frame is read.
 */
const TTL_SECONDS = 60;
/**
 * The other mounts' lifetime: with `refresh-margin` 5 s they renew 115 s in, well after the tests
 * that read their frames (a swap would replace a frame being read; the file takes ~45 s on a quiet
 * CI machine, and 55 s, their renewal with Acme's lifetime, was too close on a loaded one).
 */
const OTHERS_TTL_SECONDS = 120;
const ELEMENTS = [
  { id: 'acme', customer: 'acme', dashboard: '1', attributes: `refresh-margin="50" variables='{"region":"north"}' titled="true" bordered="false"` },
  { id: 'globex', customer: 'globex', dashboard: '1', attributes: 'refresh-margin="5"', ttlSeconds: OTHERS_TTL_SECONDS },
  // An Acme session (a mount of its own, for its lifetime), its page setting the locked parameter (and a disabled one) as if editable.
  {
    id: 'hostile',
    customer: 'acme',
    ttlSeconds: OTHERS_TTL_SECONDS,
    dashboard: '1',
    attributes: `refresh-margin="5" variables='{"customer_id":["globex","initech"],"product":"reactor"}'`,
  },
  // A dashboard the BFF does not embed (EMBED_DASHBOARDS=1): the token is refused.
  { id: 'refused', customer: 'acme', mount: 'acme', dashboard: '2' },
  // Globex's session showing question 3 (`chart="3"`, EMBED_METABASE_QUESTIONS=3) at /embed/question/<jwt>.
  { id: 'question', customer: 'globex', mount: 'globex', chart: '3', attributes: 'refresh-margin="5"' },
];
/** The sample rows by customer: Acme north (anvil, magnet), south (rocket); Globex (reactor, turbine). */
const ACME_NORTH = ['anvil', 'magnet'];
const NOT_ACME_NORTH = ['rocket', 'reactor', 'turbine', 'stapler', 'printer', 'tps', 'mug', 'ticket'];

interface Sample {
  at: number;
  state: string | null;
  /** The element's iframes a viewer sees (displayed, not hidden, of some height), by src. */
  visible: string[];
}

/** One engine's page, opened when the file starts; the tests read it in order. */
interface EnginePage {
  host: MetabaseHost;
  browser: EngineBrowser;
  context: EngineContext;
  tab: Tab;
  frames: Partial<Record<'acme' | 'globex' | 'hostile', FrameRef>>;
  /** Acme's first frame URL (the first test reads it). */
  acmeSrc: string;
}

async function openPage(engine: Engine): Promise<EnginePage> {
  const [host, browser] = await Promise.all([startMetabaseHost({ elements: ELEMENTS, ttlSeconds: TTL_SECONDS }), openEngineBrowser(engine)]);
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await host.signIn(context);
  const tab = await context.newTab();
  await tab.goto(host.url);
  // One renewal of Acme's while the file runs: its first token's refresh is due 40 s in (a third
  // of 60 s), scheduled when it came; the renewed token's, with 5 s, after the file. A bound on a
  // hung start (three browsers start at once beside the other e2e file), not a timed assertion.
  await eventually('acme’s first token', async () => (await eventsOf(tab, 'acme', 'dashboard-token')).length > 0, 60_000);
  await tab.evaluate(() => document.getElementById('el-acme')!.setAttribute('refresh-margin', '5'));
  // Every animation frame of the page from now on: Acme's state and the iframes a viewer sees.
  await tab.evaluate(() => {
    const samples: Sample[] = ((window as unknown as { __samples: Sample[] }).__samples = []);
    const tick = () => {
      const el = document.getElementById('el-acme')!;
      samples.push({
        at: Date.now(),
        state: el.getAttribute('state'),
        visible: [...el.shadowRoot!.querySelectorAll('iframe')]
          .filter((f) => !f.hidden && getComputedStyle(f).visibility !== 'hidden' && f.getBoundingClientRect().height > 0)
          .map((f) => f.getAttribute('src') ?? ''),
      });
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
  return { host, browser, context, tab, frames: {}, acmeSrc: '' };
}

/**
 * Every engine's page at once, from the file's start: most of the file is the wait for Acme's
 * renewal, 40 s in, and the engines' waits overlap (one after the other, they took 120 s of a
 * CI run). The engines' reading tests run first, the renewals after them (the second
 * `describe.each`), so no engine's frames are read near the others' renewals, 55 s in.
 */
const opening = new Map<EngineName, Promise<EnginePage>>();
for (const engine of engines().filter((candidate) => candidate.available)) {
  const page = openPage(engine);
  page.catch(() => undefined);
  opening.set(engine.name, page);
}
afterAll(async () => {
  for (const page of await Promise.allSettled(opening.values())) {
    if (page.status !== 'fulfilled') continue;
    await page.value.context.close();
    await page.value.browser.close();
    await page.value.host.close();
  }
});
/** The engine's page, for its tests (a failed start fails each of them with its error). */
const pageOf = (engine: Engine): Promise<EnginePage> => opening.get(engine.name)!;

describe.each(engines())('protocol="metabase" against the emulator behind the BFF in $name', (engine) => {
  let page: EnginePage;
  beforeAll(async () => {
    if (engine.available) page = await pageOf(engine);
  }, 120_000);

  it.skipIf(!engine.available)('two customers on one page each see only their own rows; an editable parameter from variables narrows them', async () => {
    const { tab, host, frames } = page;
    for (const id of ['acme', 'globex'] as const) {
      await eventually(`${id} ready`, async () => (await stateOf(tab, id)) === 'ready', 20_000);
      const src = await visibleSrc(tab, id);
      if (id === 'acme') page.acmeSrc = src;
      frames[id] = await frameAt(tab, src);
    }
    const acme = await viewOf(tab, 'acme', 'acme rows');
    const globex = await viewOf(tab, 'globex', 'globex rows');
    expect([acme.state, globex.state]).toEqual(['loaded', 'loaded']);
    expect(new Set(acme.customers)).toEqual(new Set(['acme']));
    expect(acme.products.sort()).toEqual([...ACME_NORTH].sort());
    expect(new Set(globex.customers)).toEqual(new Set(['globex']));
    expect(globex.products.sort()).toEqual(['reactor', 'turbine']);
    // The element's URL: the token, the editable parameter in the query, the hash options.
    const url = new URL(page.acmeSrc);
    expect(url.origin).toBe(host.emulator.url);
    expect(url.search).toBe('?region=north');
    expect(url.hash).toBe('#bordered=false&titled=true');
    // The BFF named the dashboard: one first token per element with a mount of its session.
    expect((await eventsOf(tab, 'acme', 'dashboard-load')).length).toBe(1);
  });

  it.skipIf(!engine.available)('each frame takes its dashboard’s height', async () => {
    const { tab } = page;
    for (const id of ['acme', 'globex'] as const) {
      await eventually(`${id}'s frame at its dashboard's height`, async () => {
        const [height, content] = [await elementFrameHeight(tab, id), (await viewOf(tab, id, `${id}'s frame`)).height];
        return height > 100 && Math.abs(height - content) <= 2;
      });
    }
    // Different content, different heights: each followed its own frame.
    const resized = (await eventsOf(tab, 'globex', 'dashboard-resize')).map((e) => e.detail.height);
    expect(resized.length).toBeGreaterThan(0);
  });

  it.skipIf(!engine.available)('a question (chart="3") embeds at /embed/question/<jwt> and shows only its customer’s rows, at its height', async () => {
    const { tab, host } = page;
    await eventually('question ready', async () => (await stateOf(tab, 'question')) === 'ready', 20_000);
    const src = new URL(await visibleSrc(tab, 'question'));
    expect(src.origin).toBe(host.emulator.url);
    expect(src.pathname).toMatch(/^\/embed\/question\/[\w-]+\.[\w-]+\.[\w-]+$/);
    // The token the BFF signed names the question, Globex's customer_id locked in it.
    const claims = JSON.parse(Buffer.from(src.pathname.split('/').pop()!.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
    expect(claims).toMatchObject({ resource: { question: 3 }, params: { customer_id: ['globex'] } });
    const view = await viewOf(tab, 'question', 'the question’s rows');
    expect(view.state).toBe('loaded');
    expect(new Set(view.customers)).toEqual(new Set(['globex']));
    expect(view.products.sort()).toEqual(['reactor', 'turbine']);
    expect((await eventsOf(tab, 'question', 'dashboard-load')).map((e) => e.detail.dashboardId)).toEqual(['3']);
    await eventually('the question’s frame at its height', async () => {
      const [height, content] = [await elementFrameHeight(tab, 'question'), (await viewOf(tab, 'question', 'the question’s frame')).height];
      return height > 100 && Math.abs(height - content) <= 2;
    });
  });

  it.skipIf(!engine.available)('a page cannot set or widen the locked parameter: not through variables, not by editing the frame URL', async () => {
    const { tab, frames } = page;
    await eventually('hostile ready', async () => (await stateOf(tab, 'hostile')) === 'ready', 20_000);
    const hostileSrc = await visibleSrc(tab, 'hostile');
    expect(new URL(hostileSrc).searchParams.getAll('customer_id')).toEqual(['globex', 'initech']);
    frames.hostile = await frameAt(tab, hostileSrc);
    const hostile = await answeredView(frames.hostile, 'the hostile frame answered');
    // Metabase's refusal, and no row of anyone.
    expect(hostile.customers).toEqual([]);
    expect(hostile.text).not.toMatch(/reactor|turbine|stapler|anvil/);
    // Acme's own frame URL, edited by hand to name Globex (as a query parameter, and in the hash).
    const edited = new URL(page.acmeSrc);
    edited.searchParams.set('customer_id', 'globex');
    edited.hash = `${edited.hash}&customer_id=globex`;
    await tab.evaluate((src) => {
      const frame = document.createElement('iframe');
      frame.id = 'edited';
      frame.src = src;
      document.body.append(frame);
    }, edited.href);
    const editedFrame = await frameAt(tab, edited.href);
    const view = await answeredView(editedFrame, 'the edited frame answered');
    expect(view.customers).toEqual([]);
    expect(view.text).not.toMatch(/reactor|turbine/);
    await tab.evaluate(() => document.getElementById('edited')!.remove());
  });

  it.skipIf(!engine.available)('a refused token is the error state, with the BFF’s code, and no frame', async () => {
    const { tab } = page;
    await eventually('refused in error', async () => (await stateOf(tab, 'refused')) === 'error', 20_000);
    const [error] = await eventsOf(tab, 'refused', 'dashboard-error');
    expect(error!.detail).toMatchObject({ retryable: false });
    expect(String(error!.detail.code)).not.toBe('');
    expect(await visibleSrc(tab, 'refused')).toBe('');
    const shown = await tab.evaluate(() => document.getElementById('el-refused')!.shadowRoot!.textContent ?? '');
    expect(shown).toMatch(/could not be loaded/);
  });
});

describe.each(engines())('protocol="metabase" renewal behind the BFF in $name', (engine) => {
  let page: EnginePage;
  beforeAll(async () => {
    if (engine.available) page = await pageOf(engine);
  }, 120_000);

  it.skipIf(!engine.available)('renews before exp in a hidden frame swapped in once laid out: never a blank frame, the same rows after', async () => {
    const { tab, host } = page;
    const renewed = await eventually(
      'acme renewed in a new frame',
      async () => {
        const src = await visibleSrc(tab, 'acme');
        return src !== page.acmeSrc ? src : undefined;
      },
      55_000,
      100,
    );
    expect(host.answers.some((a) => a.status === 200 && a.path === '/embed-acme/token/rotate')).toBe(true);
    const token = (src: string) => new URL(src).pathname.split('/').pop();
    expect(token(renewed)).not.toBe(token(page.acmeSrc));
    // The new frame shows Acme's rows: it was swapped in once it reported the old one's height.
    const next = await frameAt(tab, renewed);
    const view = await frameView(next);
    expect(view.state).toBe('loaded');
    expect(view.products.sort()).toEqual([...ACME_NORTH].sort());
    for (const other of NOT_ACME_NORTH) expect(view.products).not.toContain(other);
    // Every animation frame from the first ready to now: a frame on screen, ready or refreshing, never two.
    await tab.evaluate(() => new Promise((resolve) => requestAnimationFrame(resolve)));
    const samples = await tab.evaluate(() => (window as unknown as { __samples: Sample[] }).__samples);
    const from = samples.findIndex((s) => s.state === 'ready');
    const watched = samples.slice(from);
    expect(watched.length).toBeGreaterThan(10);
    const blank = watched.filter((s) => s.visible.length !== 1 || (s.state !== 'ready' && s.state !== 'refreshing'));
    expect(blank).toEqual([]);
    expect(new Set(watched.map((s) => s.visible[0]))).toEqual(new Set([page.acmeSrc, renewed]));
    expect((await eventsOf(tab, 'acme', 'dashboard-token')).map((e) => e.detail.reason)).toEqual(['initial', 'refresh']);
    expect(await stateOf(tab, 'acme')).toBe('ready');
  });
});
