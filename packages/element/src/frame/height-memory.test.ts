import { describe, expect, it, vi } from 'vitest';
import { json, mount, settle, stubFetch, tokenBody, useElementTestEnvironment, type Mounted } from '../../test/support/fixtures.js';
import { HEIGHT_MEMORY_KEY, MAX_REMEMBERED_HEIGHTS, recallHeight, rememberHeight } from './height-memory.js';

useElementTestEnvironment();

const ready = (dashboardHeight?: unknown) => ({ event: 'dashboardReadyToLoad', detail: { dashboardId: 'sales', dashboardHeight } });
const loaded = (dashboardHeight: number) => ({ event: 'dashboardLoaded', detail: { dashboardId: 'sales', dashboardHeight, loadTime: 5 } });
const frameHeight = (m: Mounted) => m.frame.style.getPropertyValue('--embedded-dashboard-height');
const reserved = (m: Mounted) => m.el.shadowRoot!.querySelector<HTMLElement>('[part=base]')!.style.getPropertyValue('--embedded-dashboard-height');

async function shown(attributes: Record<string, string> = {}) {
  stubFetch(json(tokenBody(600)));
  const m = await mount(attributes);
  await settle(m.el);
  return m;
}

describe('<embedded-dashboard> no jump', () => {
  it('sizes the frame from dashboardReadyToLoad.dashboardHeight, before dashboard-load', async () => {
    const m = await shown();
    m.fromFrame(ready(812.2));
    await m.el.updateComplete;
    expect(frameHeight(m)).toBe('813px');
    expect(reserved(m)).toBe('813px');
    expect(m.events.some((e) => e.type === 'dashboard-load')).toBe(false);
    m.fromFrame(loaded(813));
    await m.el.updateComplete;
    expect(m.events.find((e) => e.type === 'dashboard-load')!.detail).toMatchObject({ height: 813 });
  });

  it('ignores an absent, zero, absurd or non-numeric height in dashboardReadyToLoad, and one from another window or origin', async () => {
    const m = await shown();
    for (const height of [undefined, 0, -5, 1e9, 20_001, Infinity, '900', null]) m.fromFrame(ready(height));
    m.fromFrame(ready(700), { source: window });
    m.fromFrame(ready(700), { origin: 'https://evil.example' });
    await m.el.updateComplete;
    expect(frameHeight(m)).toBe('');
    expect(sessionStorage.getItem(HEIGHT_MEMORY_KEY)).toBeNull();
  });

  it('starts a repeat view of a dashboard at the height it last reported in this page session', async () => {
    const first = await shown();
    first.fromFrame(ready());
    first.fromFrame(loaded(777));
    await first.el.updateComplete;
    first.el.remove();
    const again = await shown();
    // Before any message from the new frame: the space is reserved already.
    expect(frameHeight(again)).toBe('777px');
    expect(reserved(again)).toBe('777px');
    const other = await shown({ dashboard: 'support' });
    expect(frameHeight(other)).toBe('');
  });

  it('keeps opting out with no-auto-resize', async () => {
    rememberHeight('sales', 777);
    const m = await shown({ 'no-auto-resize': '' });
    m.fromFrame(ready(900));
    await m.el.updateComplete;
    expect(frameHeight(m)).toBe('');
    expect(reserved(m)).toBe('');
  });

  it('fails safe when sessionStorage holds garbage or throws', async () => {
    for (const garbage of [
      '{not json',
      '"a string"',
      '{"sales":700}',
      '[["sales",1e9]]',
      '[["sales","700"]]',
      '[null,["sales",-1],[1,2]]',
      '[["sales",700.5]]',
    ]) {
      sessionStorage.setItem(HEIGHT_MEMORY_KEY, garbage);
      expect(recallHeight('sales')).toBeUndefined();
    }
    sessionStorage.setItem(HEIGHT_MEMORY_KEY, '[["x",5],"junk",["sales",640]]');
    expect(recallHeight('sales')).toBe(640);
    vi.spyOn(Storage.prototype, 'getItem').mockImplementation(() => {
      throw new DOMException('denied', 'SecurityError');
    });
    vi.spyOn(Storage.prototype, 'setItem').mockImplementation(() => {
      throw new DOMException('full', 'QuotaExceededError');
    });
    const m = await shown();
    m.fromFrame(ready(900));
    await m.el.updateComplete;
    expect(frameHeight(m)).toBe('900px');
    expect(m.el.problem).toBeUndefined();
  });

  it('fails safe where sessionStorage itself is out of reach (a sandboxed frame)', async () => {
    vi.stubGlobal('sessionStorage', undefined);
    expect(recallHeight('sales')).toBeUndefined();
    expect(() => rememberHeight('sales', 500)).not.toThrow();
    const m = await shown();
    m.fromFrame(loaded(500));
    await m.el.updateComplete;
    expect(frameHeight(m)).toBe('500px');
  });

  it(`remembers at most ${MAX_REMEMBERED_HEIGHTS} dashboards, forgetting the least recently reported, and no absurd height or key`, () => {
    for (let i = 0; i < MAX_REMEMBERED_HEIGHTS + 10; i++) rememberHeight(`d${i}`, 100 + i);
    const stored = JSON.parse(sessionStorage.getItem(HEIGHT_MEMORY_KEY)!) as unknown[];
    expect(stored).toHaveLength(MAX_REMEMBERED_HEIGHTS);
    expect(recallHeight('d0')).toBeUndefined();
    expect(recallHeight(`d${MAX_REMEMBERED_HEIGHTS + 9}`)).toBe(100 + MAX_REMEMBERED_HEIGHTS + 9);
    rememberHeight('huge', 1e9);
    rememberHeight('k'.repeat(10_000), 500);
    expect(recallHeight('huge')).toBeUndefined();
    expect(sessionStorage.getItem(HEIGHT_MEMORY_KEY)!.length).toBeLessThan(2000);
  });
});
