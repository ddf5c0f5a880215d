// @vitest-environment happy-dom
import { describe, expect, it, vi } from 'vitest';
import { dashboardHostRoutes } from '../routes.js';
import { scriptSafeJson } from './inline-script.js';

describe('scriptSafeJson', () => {
  it('cannot close a script element or open a comment', () => {
    const text = scriptSafeJson({ a: '</script><!-- & \u2028\u2029' });
    expect(text).not.toMatch(/<|>|&|\u2028|\u2029/);
    expect(JSON.parse(text)).toEqual({ a: '</script><!-- & \u2028\u2029' });
  });
});

describe('the served page script', () => {
  it.each([
    ['a ?token= URL', '/iframe/support-metrics', '/iframe/support-metrics?token=tok-1', 'pro'],
    [
      "the vendor's embed URL (token in the path, a variable in the query)",
      '/iframe/support-metrics/tok-1/production',
      '/iframe/support-metrics/tok-1/production?plan=%22team%22',
      'team',
    ],
  ])('runs with nothing but browser globals and renders from %s', async (_, path, pageUrl, plan) => {
    const app = dashboardHostRoutes({
      embedOrigins: ['http://localhost:*'],
      resolveToken: (token) =>
        token === 'tok-1' ? { name: 'Initech', providedId: 'initech', environment: 'Testing', properties: { plan: 'pro' } } : undefined,
    });
    const html = await (await app.request(path)).text();
    const body = /<body[^>]*>([\s\S]*)<\/body>/.exec(html)?.[1] ?? '';
    const script = /<script nonce="[^"]+">([\s\S]*)<\/script>/.exec(html)?.[1] ?? '';
    document.body.innerHTML = body.replace(/<script[\s\S]*<\/script>/, '');
    (window as unknown as { happyDOM: { setURL(url: string): void } }).happyDOM.setURL(`http://127.0.0.1:8790${pageUrl}`);
    const fetched: Array<{ url: string; auth: string | null }> = [];
    vi.spyOn(window, 'fetch').mockImplementation(async (input, init) => {
      const url = new URL(String(input), window.location.href);
      const auth = new Headers(init?.headers).get('Authorization');
      fetched.push({ url: url.pathname, auth });
      return app.request(url.pathname, { headers: { Authorization: auth ?? '' } });
    });
    // A Function body sees only globals: any module-scope reference left in the inlined
    // sources would throw here.
    new Function(script)();
    await vi.waitFor(() => expect(document.body.dataset.state).toBe('ready'));
    expect(fetched).toEqual([{ url: '/iframe-data/support-metrics', auth: 'Bearer tok-1' }]);
    expect(document.querySelector('[data-testid="group-name"]')?.textContent).toBe('Initech');
    expect(document.querySelectorAll('figure.chart svg')).toHaveLength(2);
    expect(document.body.dataset.tokenGeneration).toBe('1');
    expect(document.querySelector<HTMLInputElement>('[data-var="plan"] input')?.value).toBe(plan);
  });
});
