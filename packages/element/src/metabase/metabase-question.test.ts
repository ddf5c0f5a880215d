import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { METABASE_EMBED_PATHS } from '@embedded-dashboard/protocol';
import {
  bffError,
  FakeBroadcastChannel,
  json,
  mount,
  ORIGIN,
  resolved,
  settle,
  stubFetch,
  tokenBody,
  useElementTestEnvironment,
  type Mounted,
} from '../../test/support/fixtures.js';
import '../metabase.js';
import { HEIGHT_MEMORY_KEY } from '../frame/height-memory.js';

useElementTestEnvironment();

/*
 * A Metabase question: `<embedded-dashboard protocol="metabase" chart="12">` (the element's `chart`
 * standing alone, no `dashboard`), its token requested as `{"chart": "12"}` (what the BFF's
 * Metabase adapter signs as `resource: {question: 12}`), its frame at `/embed/question/<jwt>` from
 * the same `…/embed/dashboard/{token}` template a dashboard takes.
 */
const TEMPLATE = `${ORIGIN}/embed/dashboard/{token}`;
const question = (extra: Record<string, string | null> = {}) => ({ protocol: 'metabase', dashboard: null, chart: '12', 'src-template': TEMPLATE, ...extra });
const fit = (height: number) => ({ metabase: { type: 'frame', frame: { mode: 'fit', height } } });
const frames = (m: Mounted) => [...m.el.shadowRoot!.querySelectorAll('iframe')];
const bodyOf = (fetch: ReturnType<typeof stubFetch>, call: number) => JSON.parse(fetch.mock.calls[call]![1]!.body as string) as Record<string, unknown>;
const errorsOf = (m: Mounted) => m.events.filter((e) => e.type === 'dashboard-error').map((e) => e.detail as { code: string; message: string });
const heightOf = (frame: Element) => (frame as HTMLElement).style.getPropertyValue('--embedded-dashboard-height');
const send = (source: unknown, data: unknown) => window.dispatchEvent(new MessageEvent('message', { data, origin: ORIGIN, source: source as Window }));

describe('<embedded-dashboard protocol="metabase" chart> (a Metabase question)', () => {
  it('asks for a question token ({"chart"} alone) and loads /embed/question/<token> from the dashboard template, with the hash options and variables', async () => {
    const first = tokenBody(600);
    const fetch = stubFetch(json(first));
    const m = await mount(question({ titled: 'false', theme: 'night', variables: '{"region":["north","south"]}' }));
    await settle(m.el);
    expect(bodyOf(fetch, 0)).toEqual({ chart: '12' });
    const src = new URL(m.frame.getAttribute('src')!);
    expect(src.origin + src.pathname).toBe(`${ORIGIN}${METABASE_EMBED_PATHS.question}${first.token}`);
    expect(src.search).toBe('?region=north&region=south');
    expect(src.hash).toBe('#titled=false&theme=night');
    expect(m.win.postMessage).not.toHaveBeenCalled();
    // Shown when it reports, named by its id, at its height, remembered apart from any dashboard 12.
    m.fromFrame(fit(480));
    await settle(m.el);
    expect(m.el.state).toBe('ready');
    expect(m.events.filter((e) => e.type === 'dashboard-load').map((e) => e.detail)).toEqual([{ dashboardId: '12', height: 480, loadTime: 0 }]);
    expect(heightOf(m.frame)).toBe('480px');
    expect(JSON.parse(sessionStorage.getItem(HEIGHT_MEMORY_KEY)!)).toEqual([['\n12', 480]]);
  });

  it('runs the README’s question snippet: the token request names the question alone, the frame is its /embed/question/ URL', async () => {
    const readme = readFileSync(join(dirname(fileURLToPath(import.meta.url)), '../../README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## Metabase (`protocol="metabase"`)'));
    const snippet = /```html\n([\s\S]*?)```/.exec(section.slice(section.indexOf('- **A question**')))![1]!.replace(/^ {2}/gm, '');
    expect(snippet).toContain('chart="12"');
    const first = tokenBody(600);
    const fetch = stubFetch(json(first));
    document.body.insertAdjacentHTML('beforeend', snippet);
    const el = document.body.lastElementChild as HTMLElementTagNameMap['embedded-dashboard'];
    await settle(el);
    expect(String(fetch.mock.calls[0]![0])).toBe(new URL('/embed/token', document.baseURI).href);
    expect(bodyOf(fetch, 0)).toEqual({ chart: '12' });
    const frame = el.shadowRoot!.querySelector('iframe')!;
    expect(frame.getAttribute('src')).toBe(`https://mb.example.com/embed/question/${first.token}?region=north#titled=false`);
    expect([frame.getAttribute('title'), frame.getAttribute('sandbox')]).toEqual([
      'Sales rows',
      'allow-same-origin allow-scripts allow-forms allow-popups allow-downloads',
    ]);
  });

  it('takes a question by its entity id, and a template naming /embed/question/ serves dashboards too', async () => {
    const forQuestion = tokenBody(600);
    const forDashboard = tokenBody(600);
    const fetch = stubFetch(json(forQuestion), json(forDashboard));
    const questionTemplate = `${ORIGIN}/mb/embed/question/{token}`;
    const q = await mount(question({ chart: 'salesRowsQuestion0001', 'src-template': questionTemplate }));
    const d = await mount({ protocol: 'metabase', dashboard: '7', 'src-template': questionTemplate });
    await settle(q.el);
    await settle(d.el);
    expect([bodyOf(fetch, 0), bodyOf(fetch, 1)]).toEqual([{ chart: 'salesRowsQuestion0001' }, { dashboard: '7' }]);
    expect(q.frame.getAttribute('src')).toBe(`${ORIGIN}/mb/embed/question/${forQuestion.token}`);
    expect(d.frame.getAttribute('src')).toBe(`${ORIGIN}/mb/embed/dashboard/${forDashboard.token}`);
  });

  it('renews before exp in a hidden frame at /embed/question/, the renewal naming the question, swapped in when it reports: never a blank frame', async () => {
    const first = tokenBody(600);
    const second = tokenBody(600);
    const fetch = stubFetch(json(first), json(second));
    const m = await mount(question({ 'refresh-margin': '60' }));
    await settle(m.el);
    m.fromFrame(fit(480));
    await settle(m.el);
    await vi.advanceTimersByTimeAsync(540_000);
    await settle(m.el);
    expect(String(fetch.mock.calls[1]![0])).toBe(`${resolved(m.el)}/rotate`);
    expect(bodyOf(fetch, 1)).toEqual({ token: first.token, chart: '12' });
    const next = frames(m).find((f) => f !== m.frame)!;
    expect(next.getAttribute('src')).toBe(`${ORIGIN}/embed/question/${second.token}`);
    expect(next.className).toBe('pending next');
    expect(m.frame.className).toBe('');
    const win = { postMessage: vi.fn() };
    Object.defineProperty(next, 'contentWindow', { value: win, configurable: true });
    send(win, fit(480));
    await settle(m.el);
    expect(frames(m)).toEqual([next]);
    expect(heightOf(next)).toBe('480px');
    expect(m.el.state).toBe('ready');
  });

  it('shows the error state when the BFF refuses the question (not one it embeds)', async () => {
    stubFetch(bffError(403, 'forbidden'));
    const m = await mount(question());
    await settle(m.el);
    expect(m.el.state).toBe('error');
    expect(errorsOf(m)).toEqual([{ code: 'forbidden', message: 'refused: forbidden', retryable: false }]);
    expect(frames(m).every((f) => !f.getAttribute('src'))).toBe(true);
  });

  it('never shares a token between dashboard 12 and question 12: not in the page, not across tabs', async () => {
    const forDashboard = tokenBody(600);
    const forQuestion = tokenBody(600);
    const fetch = stubFetch(json(forDashboard), json(forQuestion));
    const d = await mount({ protocol: 'metabase', dashboard: '12', 'src-template': TEMPLATE });
    await settle(d.el);
    // The question mounts once the dashboard holds a valid token: it asks for its own all the same.
    const q = await mount(question());
    await settle(q.el);
    expect(fetch).toHaveBeenCalledTimes(2);
    expect([bodyOf(fetch, 0), bodyOf(fetch, 1)]).toEqual([{ dashboard: '12' }, { chart: '12' }]);
    expect(d.frame.getAttribute('src')).toBe(`${ORIGIN}/embed/dashboard/${forDashboard.token}`);
    expect(q.frame.getAttribute('src')).toBe(`${ORIGIN}/embed/question/${forQuestion.token}`);
    const url = resolved(q.el);
    expect(FakeBroadcastChannel.open.map((c) => c.name).sort()).toEqual([`embedded-dashboard:${url}  12`, `embedded-dashboard:${url} 12`]);
    // Another tab's renewal of dashboard 12 reaches the dashboard only.
    const dashboardTab = new FakeBroadcastChannel(`embedded-dashboard:${url} 12`);
    const renewed = tokenBody(600);
    dashboardTab.postMessage({ type: 'rotated', tokenUrl: url, response: renewed });
    await settle(d.el);
    await settle(q.el);
    const rotations = (m: Mounted) => m.events.filter((e) => e.type === 'dashboard-token' && e.detail.reason === 'rotate');
    expect([rotations(d).length, rotations(q).length]).toEqual([1, 0]);
    expect(frames(q).map((f) => f.getAttribute('src'))).toEqual([`${ORIGIN}/embed/question/${forQuestion.token}`]);
  });

  it('starts over for another question, or a dashboard instead: a token for it, the old one never presented', async () => {
    const fetch = stubFetch(json(tokenBody(600)), json(tokenBody(600)), json(tokenBody(600)));
    const m = await mount(question());
    await settle(m.el);
    m.fromFrame(fit(480));
    await settle(m.el);
    m.el.setAttribute('chart', '13');
    await settle(m.el);
    await settle(m.el);
    expect(bodyOf(fetch, 1)).toEqual({ chart: '13' });
    expect(frames(m)).toHaveLength(1);
    expect(frames(m)[0]!.getAttribute('src')).toMatch(new RegExp(`^${ORIGIN}/embed/question/tok-`));
    // To a dashboard: `chart` removed (null), `dashboard` set.
    m.el.removeAttribute('chart');
    m.el.setAttribute('dashboard', '7');
    await settle(m.el);
    await settle(m.el);
    expect(bodyOf(fetch, 2)).toEqual({ dashboard: '7' });
    expect(frames(m)[0]!.getAttribute('src')).toMatch(new RegExp(`^${ORIGIN}/embed/dashboard/tok-`));
    expect(errorsOf(m)).toEqual([]);
  });

  it('takes a question once its dashboard is removed (the property null): the request names the question alone', async () => {
    const fetch = stubFetch(json(tokenBody(600)));
    const m = await mount(question({ dashboard: '7' }));
    await settle(m.el);
    expect(errorsOf(m).map((e) => e.message)).toEqual([expect.stringMatching(/not both/)]);
    expect(fetch).not.toHaveBeenCalled();
    m.el.removeAttribute('dashboard');
    await settle(m.el);
    await settle(m.el);
    expect(bodyOf(fetch, 0)).toEqual({ chart: '12' });
    expect(m.el.state).toBe('loading');
  });

  it.each([
    ['empty', { chart: '' }, /chart must be a chart id/],
    ['huge', { chart: '1'.repeat(129) }, /chart must be a chart id/],
    ['huge for a Metabase id (17 digits)', { chart: '1'.repeat(17) }, /dashboard or chart must be a Metabase id/],
    ['zero', { chart: '0' }, /dashboard or chart must be a Metabase id/],
    ['no id (a name)', { chart: 'revenue' }, /dashboard or chart must be a Metabase id/],
    ['a path', { chart: '../12' }, /chart must be a chart id/],
    ['markup', { chart: '<img src=x onerror=alert(1)>' }, /chart must be a chart id/],
    ['given beside a dashboard', { dashboard: '7' }, /dashboard or chart must be a Metabase id, not both/],
    ['given beside an empty dashboard', { dashboard: '' }, /dashboard or chart must be a Metabase id, not both/],
    ['neither it nor a dashboard', { chart: null }, /dashboard or chart must be a Metabase id/],
    [
      'under a template without /embed/dashboard/{token}',
      { 'src-template': `${ORIGIN}/proxy/{token}` },
      /src-template must hold \/embed\/dashboard\/\{token\}/,
    ],
    ['under a template naming {token} elsewhere', { 'src-template': `${ORIGIN}/embed/dashboard/x?t={token}` }, /src-template must hold/],
  ])('refuses a chart that is %s with invalid_attribute and asks for no token', async (_name, extra, message) => {
    const fetch = stubFetch(json(tokenBody(600)));
    const m = await mount(question(extra));
    await settle(m.el);
    expect(m.el.state).toBe('error');
    expect(errorsOf(m)).toEqual([{ code: 'invalid_attribute', message: expect.stringMatching(message), retryable: false }]);
    expect(fetch).not.toHaveBeenCalled();
    expect(frames(m).every((f) => !f.getAttribute('src'))).toBe(true);
  });

  it('refuses a chart property of the wrong type', async () => {
    const fetch = stubFetch(json(tokenBody(600)));
    const m = await mount(question());
    await settle(m.el);
    (m.el as unknown as { chart: unknown }).chart = 12;
    await settle(m.el);
    expect(m.el.state).toBe('error');
    expect(errorsOf(m).map((e) => e.message)).toEqual([expect.stringMatching(/chart must be a chart id/)]);
    expect(fetch).toHaveBeenCalledTimes(1);
  });
});
