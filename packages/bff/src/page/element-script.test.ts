import { Window } from 'happy-dom';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderElementScript } from './element-script.js';

/** Runs the markup in a happy-dom page; returns the page and the scripts it appended to <head>. */
function run(markup: string, setUp?: (window: Window) => void) {
  const window = new Window({ url: 'https://app.example.com/' });
  setUp?.(window);
  const document = window.document;
  const appended: { src: string; type: string; nonce: string; integrity?: string; crossOrigin?: string | null }[] = [];
  const append = document.head.append.bind(document.head);
  document.head.append = (...nodes) => {
    for (const node of nodes) {
      const script = node as unknown as HTMLScriptElement;
      appended.push({
        src: script.getAttribute('src') ?? '',
        type: script.type,
        nonce: script.nonce ?? '',
        ...(script.integrity ? { integrity: script.integrity, crossOrigin: script.crossOrigin } : {}),
      });
    }
    // Not appended for real: happy-dom would fetch the module.
    void append;
  };
  const holder = document.createElement('div');
  holder.innerHTML = markup;
  const script = holder.querySelector('script')!;
  // Run the inline script as the page would, with the page as its global.
  new window.Function(script.textContent ?? '').call(window);
  return { window, appended, holder };
}

afterEach(() => vi.useRealTimers());

describe('renderElementScript', () => {
  it('loads the module once the dashboard says it is loaded, once only', async () => {
    const { window, appended } = run(renderElementScript({ src: '/embedded-dashboard.js' }));
    window.dispatchEvent(new window.MessageEvent('message', { data: { event: 'dashboardReadyToLoad' } }));
    window.dispatchEvent(new window.MessageEvent('message', { data: 'dashboardLoaded' }));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(appended).toEqual([]);
    window.dispatchEvent(new window.MessageEvent('message', { data: { event: 'dashboardLoaded', detail: {} } }));
    window.dispatchEvent(new window.MessageEvent('message', { data: { event: 'dashboardLoaded', detail: {} } }));
    await vi.waitFor(() => expect(appended).toEqual([{ src: '/embedded-dashboard.js', type: 'module', nonce: '' }]));
    window.dispatchEvent(new window.Event('load'));
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(appended).toHaveLength(1);
    await window.happyDOM.abort();
  });

  it('keeps the messages for the element until it listens (at most 100), whatever their origin', async () => {
    const { window } = run(renderElementScript({ src: '/e.js' }));
    const kept = () => (window as unknown as { embeddedDashboardMessages: MessageEvent[] }).embeddedDashboardMessages;
    expect(kept()).toEqual([]);
    window.dispatchEvent(new window.MessageEvent('message', { data: { event: 'dashboardReadyToLoad' }, origin: 'https://dash.example.com' }));
    for (let i = 0; i < 150; i++) window.dispatchEvent(new window.MessageEvent('message', { data: i }));
    expect(kept()).toHaveLength(100);
    expect(kept()[0]!.data).toEqual({ event: 'dashboardReadyToLoad' });
    expect(kept()[0]!.origin).toBe('https://dash.example.com');
    await window.happyDOM.abort();
  });

  it.each(['tokenExpired', 'customerJwtExpired'])('loads it when the dashboard says its token was refused (%s): the element must rotate it', async (event) => {
    const { window, appended } = run(renderElementScript({ src: '/e.js' }));
    window.dispatchEvent(new window.MessageEvent('message', { data: { event, detail: {} } }));
    await vi.waitFor(() => expect(appended.map((a) => a.src)).toEqual(['/e.js']));
    await window.happyDOM.abort();
  });

  it('loads it fallbackMs after the page load when the dashboard says nothing', async () => {
    const { window, appended } = run(renderElementScript({ src: '/e.js', fallbackMs: 30 }));
    window.dispatchEvent(new window.Event('load'));
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(appended).toEqual([]);
    await vi.waitFor(() => expect(appended.map((a) => a.src)).toEqual(['/e.js']));
    await window.happyDOM.abort();
  });

  it('carries the nonce to both scripts, and after: "now" is a plain module script', async () => {
    const markup = renderElementScript({ src: '/e.js', nonce: 'n0nce' });
    expect(markup.startsWith('<script nonce="n0nce">')).toBe(true);
    const { window, appended } = run(markup);
    window.dispatchEvent(new window.MessageEvent('message', { data: { event: 'dashboardLoaded' } }));
    await vi.waitFor(() => expect(appended).toEqual([{ src: '/e.js', type: 'module', nonce: 'n0nce' }]));
    await window.happyDOM.abort();
    expect(renderElementScript({ src: '/e.js?v=1&x=2', after: 'now', nonce: 'n' })).toBe('<script type="module" nonce="n" src="/e.js?v=1&amp;x=2"></script>');
  });

  it('pins the module with integrity and crossorigin, in both loaders', async () => {
    const integrity = 'sha384-oqVuAfXRKap7fdgcCY5uykM6+R9GqQ8K/uxy9rx7HNQlGYl1kPzQho1wx4JwY8wC';
    expect(renderElementScript({ src: '/e.js', after: 'now', integrity })).toBe(
      `<script type="module" integrity="${integrity}" crossorigin="anonymous" src="/e.js"></script>`,
    );
    const { window, appended } = run(renderElementScript({ src: '/e.js', integrity: ` ${integrity} sha512-abc= ` }));
    window.dispatchEvent(new window.MessageEvent('message', { data: { event: 'dashboardLoaded' } }));
    await vi.waitFor(() =>
      expect(appended).toEqual([{ src: '/e.js', type: 'module', nonce: '', integrity: `${integrity} sha512-abc=`, crossOrigin: 'anonymous' }]),
    );
    await window.happyDOM.abort();
  });

  it('sets the URL through a Trusted Types policy "embedded-dashboard" where the browser has them: created once, when loading, passing that URL only', async () => {
    const policies: { name: string; rules: { createScriptURL(url: string): unknown } }[] = [];
    const { window, appended } = run(renderElementScript({ src: '/e.js?v=1' }), (page) => {
      (page as unknown as { trustedTypes: unknown }).trustedTypes = {
        createPolicy(name: string, rules: { createScriptURL(url: string): string }) {
          policies.push({ name, rules });
          return { createScriptURL: (url: string) => ({ toString: () => `${rules.createScriptURL(url)}` }) };
        },
      };
    });
    window.dispatchEvent(new window.MessageEvent('message', { data: { event: 'dashboardReadyToLoad' } }));
    await new Promise((resolve) => setTimeout(resolve, 20));
    // Nothing created before the module is loaded.
    expect(policies).toEqual([]);
    window.dispatchEvent(new window.MessageEvent('message', { data: { event: 'dashboardLoaded' } }));
    window.dispatchEvent(new window.MessageEvent('message', { data: { event: 'dashboardLoaded' } }));
    await vi.waitFor(() => expect(appended.map((a) => a.src)).toEqual(['/e.js?v=1']));
    expect(policies.map((p) => p.name)).toEqual(['embedded-dashboard']);
    expect(() => policies[0]!.rules.createScriptURL('https://evil.example/e.js')).toThrow(/not the element script/);
    await window.happyDOM.abort();
  });

  it.each([
    ['a src closing the script', '/e.js"</script><script>alert(1)</script>'],
    ['a src breaking the string', `/e.js';alert(1);'`],
    ['line separators and markup', '/e\u2028.js<!--<script>'],
  ])('hostile input: %s stays one script whose src is the value as given', async (_, src) => {
    const markup = renderElementScript({ src, nonce: `"><script>alert(2)</script>` });
    const { window, appended, holder } = run(markup);
    expect(holder.querySelectorAll('script')).toHaveLength(1);
    expect(holder.children).toHaveLength(1);
    expect(holder.querySelector('script')!.getAttribute('nonce')).toBe(`"><script>alert(2)</script>`);
    window.dispatchEvent(new window.MessageEvent('message', { data: { event: 'dashboardLoaded' } }));
    await vi.waitFor(() => expect(appended.map((a) => a.src)).toEqual([src]));
    await window.happyDOM.abort();
  });

  it.each<[string, Parameters<typeof renderElementScript>[0], RegExp]>([
    ['an empty src', { src: '' }, /src is required/],
    ['a missing src', { src: undefined as unknown as string }, /src is required/],
    ['a negative fallback', { src: '/e.js', fallbackMs: -1 }, /fallbackMs/],
    ['an infinite fallback', { src: '/e.js', fallbackMs: Infinity }, /fallbackMs/],
    ['a NaN fallback', { src: '/e.js', fallbackMs: Number.NaN }, /fallbackMs/],
    ['an unknown after', { src: '/e.js', after: 'later' as 'now' }, /after must be/],
    ['an integrity that is no hash', { src: '/e.js', integrity: 'md5-abc' }, /integrity must be/],
    ['an empty integrity', { src: '/e.js', integrity: ' ' }, /integrity must be/],
    ['an integrity closing the attribute', { src: '/e.js', integrity: 'sha384-abc"><script>alert(1)</script>' }, /integrity must be/],
    ['an oversized integrity', { src: '/e.js', integrity: `sha512-${'a'.repeat(2000)}` }, /integrity must be/],
    ['an integrity that is no string', { src: '/e.js', integrity: 42 as unknown as string }, /integrity must be/],
  ])('throws for %s', (_, options, message) => {
    expect(() => renderElementScript(options)).toThrow(message);
  });
});
