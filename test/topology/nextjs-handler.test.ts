/**
 * Issue 21's "Done when": the BFF README's Next.js route handler, in a Next.js app installed from
 * the packed tarballs (examples/nextjs, whose handler is the README's code: test/packaging/
 * examples.test.ts checks), served at `http://127.0.0.1:PORT` and behind nginx terminating TLS at
 * `https://app.example.test`, hands a token to a same-origin browser request and still refuses a
 * cross-site one (403), in Chromium, Firefox ESR and WebKitGTK. On main before the origin rule,
 * both same-origin requests were 403. The 403 is read where it is answered: the BFF's own log
 * line for the request (every engine; WebKit's driver sees no network), in the app's output.
 */
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { eventually, useDemo } from '../e2e/harness.js';
import type { ServerProcess } from '../packaging/consumer.js';
import { EXAMPLE_USERS, startExample, type RunningExample } from '../packaging/example-apps.js';
import { describeTopology, HOSTS, publicOrigin, signInToExample, startPageServer, startVendor, topologyLaunch, useSharedContext } from './topology.js';

const consumerDir = inject('consumerDir');
const topology = inject('topology');

/** A page of another site that tries the token route of `target` the two ways a page can. */
const CROSS_SITE_PAGE = `<!doctype html><title>another site</title><script>
window.attempt = async (target) => {
  const out = {};
  // A simple request (no preflight): it reaches the server; its answer is opaque to the page.
  await fetch(target + '/embed/token', { method: 'POST', mode: 'no-cors', credentials: 'include', body: '{}' }).catch(() => undefined);
  // A JSON request needs CORS: the browser asks first, and must be refused.
  try {
    const res = await fetch(target + '/embed/token', { method: 'POST', credentials: 'include', headers: { 'content-type': 'application/json' }, body: '{}' });
    out.json = res.status;
  } catch (error) {
    out.json = 'refused: ' + error.name;
  }
  return out;
};
</script>`;

/** The BFF's request log lines (JSON, one per failed request; none for a served one) in the app's output from line `from` on: `METHOD path status`. */
const answered = (server: ServerProcess, from: number): string[] =>
  server.output.slice(from).flatMap((line) => {
    try {
      const entry = JSON.parse(line) as { msg?: string; method?: string; path?: string; status?: number };
      return entry.msg === 'request' ? [`${entry.method} ${entry.path} ${entry.status}`] : [];
    } catch {
      return [];
    }
  });

describeTopology(topology, "the BFF README's Next.js handler in an app from the tarballs, in $name", (engine) => {
  const run = useDemo(engine, { launch: topologyLaunch(engine.name, topology) });
  // One browser for the user: signed in to the app, then visiting another site that tries the app's token route.
  const context = useSharedContext(run, engine);
  let vendor: ServerProcess | undefined;
  let next: RunningExample | undefined;
  let pages: Awaited<ReturnType<typeof startPageServer>> | undefined;
  const nextPort = engine.lane.upstreams[HOSTS.next];
  const pagePort = engine.lane.upstreams[HOSTS.app];

  beforeAll(async () => {
    if (!engine.available) return;
    vendor = await startVendor(consumerDir, engine.lane, [`http://127.0.0.1:${nextPort}`, publicOrigin(HOSTS.next)]);
    // The dashboards from https://vendor.test in both cases: WebKit refuses an http: frame in an https: page even from loopback (mixed content; Chromium and Firefox let loopback through).
    next = await startExample(consumerDir, 'nextjs', {
      upstreamUrl: vendor.url,
      port: nextPort,
      env: { DASHBOARD_SRC_TEMPLATE: `${publicOrigin(HOSTS.vendor)}/iframe/{dashboard}` },
    });
    pages = await startPageServer(pagePort, (req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(CROSS_SITE_PAGE));
  });
  afterAll(async () => {
    await pages?.close();
    await next?.server.stop();
    await vendor?.stop();
  });

  it.skipIf(!engine.available).each([
    ['at http://127.0.0.1:PORT', () => `http://127.0.0.1:${nextPort}`, () => `http://localhost:${pagePort}/`],
    ['behind nginx at https://app.example.test', () => publicOrigin(HOSTS.next), () => `${publicOrigin(HOSTS.app)}/`],
  ])('%s: a same-origin request gets its token, a cross-site one 403', async (_, base, otherSite) => {
    // Signed in through the app's own form, the page asks the token route itself.
    const tab = await context().newTab();
    await signInToExample(tab, base(), EXAMPLE_USERS[0]);
    const { status, body } = await tab.evaluate(async () => {
      const res = await fetch('/embed/token', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      return { status: res.status, body: await res.text() };
    });
    expect(status, body).toBe(200);
    expect(JSON.parse(body)).toMatchObject({ token: expect.any(String), serverTime: expect.any(Number) });
    // And the element on the page got there too.
    await eventually(
      'the element to be ready',
      () => tab.evaluate(() => document.querySelector('embedded-dashboard')?.getAttribute('state') === 'ready'),
      30_000,
    );

    const from = next!.server.output.length;
    const other = await context().newTab();
    await other.goto(otherSite());
    const { json } = await other.evaluate((target) => (window as unknown as { attempt(t: string): Promise<{ json: unknown }> }).attempt(target), base());
    expect(json).toBe('refused: TypeError');
    // The simple request reached the BFF and was refused (a served one would not be logged at all).
    // The JSON request's preflight never reaches it: Next.js answers OPTIONS itself (204, no CORS headers).
    await eventually("the BFF's refusal in its log", () => answered(next!.server, from).length > 0, 5_000);
    expect(answered(next!.server, from)).toEqual(['POST /embed/token 403']);
  });
});
