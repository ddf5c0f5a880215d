import { Window } from 'happy-dom';
import { describe, expect, it } from 'vitest';
import { renderDashboardFrame, type DashboardFrameOptions } from './dashboard-frame.js';

const TEMPLATE = 'https://dash.example.com/iframe/{dashboard}';

/** Parses the markup as a browser does (inside `<embedded-dashboard>`), and returns what it made. */
function parse(markup: string) {
  const window = new Window();
  const host = window.document.createElement('embedded-dashboard');
  host.innerHTML = markup;
  const elements = [...host.querySelectorAll('*')];
  void window.happyDOM.abort();
  return { elements, frame: elements[0]!, text: host.textContent };
}

describe('renderDashboardFrame', () => {
  it('renders one hidden iframe in the frame slot with the URL the element builds', () => {
    const markup = renderDashboardFrame({ dashboard: 'sales overview', srcTemplate: `${TEMPLATE}?env={environment}`, environment: 'prod&test' });
    const { elements, frame } = parse(markup);
    expect(elements).toHaveLength(1);
    expect(frame.tagName).toBe('IFRAME');
    expect(Object.fromEntries([...frame.attributes].map((a) => [a.name, a.value]))).toEqual({
      slot: 'frame',
      hidden: '',
      src: 'https://dash.example.com/iframe/sales%20overview?env=prod%26test',
      title: 'sales overview',
      allow: 'fullscreen',
      referrerpolicy: 'strict-origin',
    });
  });

  it('puts locale_code (canonical) and refresh-minutes in the URL as the element does, and refuses bad ones', () => {
    const { frame } = parse(renderDashboardFrame({ dashboard: 'sales', srcTemplate: TEMPLATE, localeCode: 'de-de', refreshMinutes: 15 }));
    expect(frame.getAttribute('src')).toBe('https://dash.example.com/iframe/sales?locale_code=de-DE&refresh-minutes=15');
    expect(() => renderDashboardFrame({ dashboard: 'sales', srcTemplate: TEMPLATE, localeCode: 'not a locale' })).toThrow(/localeCode/);
    expect(() => renderDashboardFrame({ dashboard: 'sales', srcTemplate: TEMPLATE, refreshMinutes: 0 })).toThrow(/refreshMinutes/);
  });

  it('passes label, sandbox, allow and loading through as the element does', () => {
    const { frame } = parse(
      renderDashboardFrame({
        dashboard: 'sales',
        srcTemplate: TEMPLATE,
        label: 'Sales',
        sandbox: 'allow-scripts allow-same-origin',
        allow: 'fullscreen; clipboard-write',
        loading: 'lazy',
      }),
    );
    expect(frame.getAttribute('allow')).toBe('fullscreen; clipboard-write');
    // No style attribute: the element sizes the frame through CSSOM (a host page's style-src blocks style attributes).
    expect(frame.hasAttribute('style')).toBe(false);
    expect(frame.getAttribute('title')).toBe('Sales');
    expect(frame.getAttribute('sandbox')).toBe('allow-scripts allow-same-origin');
    expect(frame.getAttribute('loading')).toBe('lazy');
  });

  it('renders no frame while the URL needs a token it was not given, and the token URL when it was', () => {
    expect(renderDashboardFrame({ dashboard: 'sales', srcTemplate: `${TEMPLATE}?token={token}` })).toBe('');
    expect(renderDashboardFrame({ dashboard: 'sales', srcTemplate: `${TEMPLATE}/{token}`, protocol: 'explo' })).toBe('');
    const { frame } = parse(
      renderDashboardFrame({
        dashboard: 'sales',
        srcTemplate: `${TEMPLATE}/{token}/{environment}`,
        protocol: 'explo',
        token: 'ct-1.a_b~c',
        environment: 'production',
        variables: { region: 'EU', seats: 3 },
      }),
    );
    expect(frame.getAttribute('src')).toBe('https://dash.example.com/iframe/sales/ct-1.a_b~c/production?region=%22EU%22&seats=3');
  });

  it('renders the frame shown (no hidden) when asked, hidden otherwise', () => {
    const shown = parse(renderDashboardFrame({ dashboard: 'sales', srcTemplate: `${TEMPLATE}#token={token}`, token: 'tok-1', visible: true })).frame;
    expect(shown.hasAttribute('hidden')).toBe(false);
    expect(shown.getAttribute('slot')).toBe('frame');
    expect(parse(renderDashboardFrame({ dashboard: 'sales', srcTemplate: TEMPLATE, visible: false })).frame.hasAttribute('hidden')).toBe(true);
  });

  it('puts the first token in the fragment with `#token={token}` (our message protocol): no frame without it', () => {
    expect(renderDashboardFrame({ dashboard: 'sales', srcTemplate: `${TEMPLATE}#token={token}` })).toBe('');
    const { frame } = parse(renderDashboardFrame({ dashboard: 'sales', srcTemplate: `${TEMPLATE}#token={token}`, token: 'ct-1.a_b~c' }));
    const src = new URL(frame.getAttribute('src')!);
    expect(src.href).toBe('https://dash.example.com/iframe/sales#token=ct-1.a_b~c');
    // What the dashboard page reads from the fragment.
    expect(new URLSearchParams(src.hash.slice(1)).get('token')).toBe('ct-1.a_b~c');
  });

  it.each<[string, Partial<DashboardFrameOptions>]>([
    ['a dashboard id closing the attribute', { dashboard: '"><script>alert(1)</script><iframe src="https://evil.example' }],
    ['a label closing the attribute', { label: `x" onload="alert(1)' ><img src=x onerror=alert(2)>` }],
    ['a sandbox closing the attribute', { sandbox: '"allow-top-navigation" onload="alert(1)' }],
    ['an allow closing the attribute', { allow: `fullscreen" onload="alert(1)` }],
    ['an environment with markup', { srcTemplate: `${TEMPLATE}?e={environment}`, environment: '</iframe><script>alert(1)</script>' }],
    ['quotes and markup in the template itself', { srcTemplate: `https://dash.example.com/iframe/{dashboard}?a="><script>x</script>#'"<b>` }],
    ['line separators and NUL', { label: 'a\u2028b\u0000c', dashboard: 'd\u2029e' }],
  ])('hostile input: %s stays one iframe with the values as text', (_, hostile) => {
    const options = { dashboard: 'sales', srcTemplate: TEMPLATE, ...hostile };
    const { elements, frame } = parse(renderDashboardFrame(options));
    expect(elements.map((element) => element.tagName)).toEqual(['IFRAME']);
    expect([...frame.attributes].map((a) => a.name).sort()).toEqual(
      ['allow', 'hidden', 'referrerpolicy', 'slot', 'src', 'title', ...(hostile.sandbox ? ['sandbox'] : [])].sort(),
    );
    expect(new URL(frame.getAttribute('src')!).origin).toBe('https://dash.example.com');
    expect(frame.getAttribute('title')).toBe((options.label || options.dashboard).replace('\u0000', '\ufffd'));
    if (hostile.sandbox) expect(frame.getAttribute('sandbox')).toBe(hostile.sandbox);
  });

  it.each<[string, Partial<DashboardFrameOptions>, RegExp]>([
    ['no dashboard', { dashboard: '' }, /dashboard is required/],
    ['a dashboard that is no string', { dashboard: 42 as unknown as string }, /dashboard is required/],
    ['no template', { srcTemplate: '' }, /src-template is required/],
    ['a javascript: template', { srcTemplate: 'javascript:alert(1)//{dashboard}' }, /absolute http\(s\) URL/],
    ['a relative template', { srcTemplate: '/iframe/{dashboard}' }, /absolute http\(s\) URL/],
    ['a token that is no token', { srcTemplate: `${TEMPLATE}?t={token}`, token: 'a"b<c' }, /not a user group token/],
    ['an empty token', { srcTemplate: `${TEMPLATE}?t={token}`, token: '' }, /not a user group token/],
  ])('refuses %s with a clear error', (_, bad, message) => {
    expect(() => renderDashboardFrame({ dashboard: 'sales', srcTemplate: TEMPLATE, ...bad })).toThrow(message);
  });
});
