import { describe, expect, it, vi } from 'vitest';
import type { TokenResponse } from '@embedded-dashboard/protocol';
import { json, ORIGIN, postedTokens, settle, stubFetch, TEMPLATE, tokenBody, useElementTestEnvironment } from '../../test/support/fixtures.js';

useElementTestEnvironment();

const ready = { event: 'dashboardReadyToLoad', detail: { dashboardId: 'sales' } };
let urlCounter = 0;

/** The page was navigated to `ago` ms before now (the fake clock): the first token came with it. */
function navigatedAgo(ago: number): number {
  const origin = Date.now() - ago;
  vi.spyOn(performance, 'timeOrigin', 'get').mockReturnValue(origin);
  return origin;
}

/** A token response as the server rendered it at navigation start (`at`), valid `ttl` seconds. */
const rendered = (at: number, ttl: number | null, skew = 0): TokenResponse => ({
  token: `first-${++urlCounter}-secret`,
  expiresAt: ttl === null ? null : at + skew + ttl * 1000,
  serverTime: at + skew,
});

/** An element with a `<script type="application/json">` child, as a server-rendered page has it. */
async function mountWith(scriptText: string | undefined, type = 'application/json') {
  const el = document.createElement('embedded-dashboard');
  const events: CustomEvent[] = [];
  for (const name of ['dashboard-token', 'dashboard-error']) el.addEventListener(name, (e) => events.push(e as CustomEvent));
  el.setAttribute('dashboard', 'sales');
  el.setAttribute('src-template', TEMPLATE);
  el.setAttribute('token-url', `/first${++urlCounter}/embed/token`);
  if (scriptText !== undefined) {
    const script = document.createElement('script');
    script.type = type;
    script.textContent = scriptText;
    el.append(script);
  }
  document.body.append(el);
  await el.updateComplete;
  const frame = el.shadowRoot!.querySelector('iframe')!;
  const win = { postMessage: vi.fn() };
  Object.defineProperty(frame, 'contentWindow', { value: win, configurable: true });
  const fromFrame = (data: unknown) => window.dispatchEvent(new MessageEvent('message', { data, origin: ORIGIN, source: win as unknown as Window }));
  return { el, win, events, fromFrame };
}

describe('a first token rendered into the page', () => {
  it('is used without a token request, and handed to the dashboard when it is ready', async () => {
    const fetch = stubFetch(json(tokenBody()));
    const first = rendered(navigatedAgo(300), 3600);
    const { el, win, events, fromFrame } = await mountWith(JSON.stringify(first));
    await settle(el);
    expect(fetch).not.toHaveBeenCalled();
    expect(events.map((e) => [e.type, e.detail.reason])).toEqual([['dashboard-token', 'initial']]);
    fromFrame(ready);
    expect(postedTokens(win)).toEqual([first.token]);
    expect(win.postMessage).toHaveBeenCalledWith(expect.anything(), ORIGIN);
  });

  it('is refreshed at its own expiresAt - refresh-margin, on the clock of navigation start', async () => {
    // The BFF's clock is a minute ahead of this browser's: serverTime says so relative to navigation start.
    const first = rendered(navigatedAgo(1000), 600, 60_000);
    const fetch = stubFetch(json(tokenBody()));
    const { el } = await mountWith(JSON.stringify(first));
    await settle(el);
    // Due at navigation start + 600 s - 60 s margin: 539 s from now.
    await vi.advanceTimersByTimeAsync(539_000 - 1);
    expect(fetch).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(fetch).toHaveBeenCalledTimes(1);
    expect(String(fetch.mock.calls[0]![0])).toMatch(/\/embed\/token\/rotate$/);
    expect(JSON.parse(String(fetch.mock.calls[0]![1]!.body))).toEqual({ token: first.token });
  });

  it('is not used once it is due (expired, or inside the refresh margin): the token is fetched as usual', async () => {
    // Expiry is judged against the server's own clock (serverTime), as for every token response.
    const at = navigatedAgo(90_000);
    for (const first of [rendered(at, 30), rendered(at, 0), rendered(at, -5), rendered(at, 120)]) {
      const fresh = tokenBody();
      const fetch = stubFetch(json(fresh));
      const { el, win, fromFrame } = await mountWith(JSON.stringify(first));
      await settle(el);
      expect(fetch).toHaveBeenCalledTimes(1);
      expect(String(fetch.mock.calls[0]![0])).toMatch(/\/embed\/token$/);
      fromFrame(ready);
      expect(postedTokens(win)).toEqual([fresh.token]);
      el.remove();
    }
  });

  it('falls back to the token request for hostile or broken content, and never shows it', async () => {
    const at = navigatedAgo(0);
    const cases: Array<[string | undefined, string?]> = [
      [undefined],
      [''],
      ['{"token":'],
      ['</script><script>alert(1)</script>'],
      [JSON.stringify({ token: 42, expiresAt: null, serverTime: at })],
      [JSON.stringify({ token: 'has spaces and <tags>', expiresAt: null, serverTime: at })],
      [JSON.stringify([rendered(at, 3600)])],
      [JSON.stringify(rendered(at, 3600)), 'text/plain'],
    ];
    for (const [text, type] of cases) {
      const fresh = tokenBody();
      const fetch = stubFetch(json(fresh));
      const { el, win, events, fromFrame } = await mountWith(text, type);
      await settle(el);
      expect(fetch, `${type ?? ''} ${text}`).toHaveBeenCalledTimes(1);
      expect(events.map((e) => e.type)).toEqual(['dashboard-token']);
      fromFrame(ready);
      expect(postedTokens(win)).toEqual([fresh.token]);
      expect(el.shadowRoot!.textContent).not.toContain('alert');
      el.remove();
    }
  });

  it('is read once: moved in the page, the element keeps its own token, not what the page says now', async () => {
    const at = navigatedAgo(0);
    const first = rendered(at, 3600);
    const fetch = stubFetch(json(tokenBody()));
    const { el, win, fromFrame } = await mountWith(JSON.stringify(first));
    await settle(el);
    el.querySelector('script')!.textContent = JSON.stringify(rendered(at, 3600));
    el.remove();
    document.body.append(el);
    await settle(el);
    expect(fetch).not.toHaveBeenCalled();
    fromFrame(ready);
    expect(postedTokens(win)).toEqual([first.token]);
  });
});
