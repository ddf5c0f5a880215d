/**
 * The demo as it would be deployed: its host app at https://app.test and the vendor (the
 * emulator) at https://vendor.test, both behind the run's nginx terminating TLS, in Chromium,
 * Firefox ESR and WebKitGTK, each resolving those names by its own mechanism (topology.ts). First
 * load with a `Secure` session cookie, rotation inside the running dashboard with both frame
 * protocols (no blank frame), and sign-out (the Secure cookie cleared; 401, no retry loop). A vendor
 * outage is not repeated here: test/e2e/token-lifecycle.test.ts rides one out in the same three
 * engines, asserting all this file asserted of it (a retryable error, `refreshing`, recovery in the
 * same document) and more; what nginx does to a 5xx/429 answer is cross-site.test.ts's (429 with a
 * readable Retry-After through nginx).
 */
import { expect, inject, it } from 'vitest';
import type { RunningDemo } from '../../demo/server/start-demo.js';
import type { EngineContext } from '../support/browsers/index.js';
import {
  eventually,
  expireWithButton,
  latestToken,
  openApp,
  sampleHost,
  sleep,
  tokenStatuses,
  useDemo,
  waitForGeneration,
  waitForReady,
  watchDashboardFrame,
  type HostSample,
} from '../e2e/harness.js';
import { describeTopology, HOSTS, httpsThroughProxy, publicOrigin, topologyLaunch, UNTRUSTED_HOST, useSharedContext } from './topology.js';

const topology = inject('topology');
const NOTICE_EXPIRY_MS = 15_000;
const APP = publicOrigin(HOSTS.app);

describeTopology(topology, 'the demo in $name behind nginx with TLS at https://app.test, its vendor at https://vendor.test', (engine) => {
  const run = useDemo(engine, { launch: topologyLaunch(engine.name, topology) });
  const context = useSharedContext(run, engine);

  /** A demo of the test's own on the lane's ports (closed after the test). */
  const startLaneDemo = () =>
    run.startDemo({
      port: engine.lane.upstreams[HOSTS.app],
      emulatorPort: engine.lane.upstreams[HOSTS.vendor],
      publicUrl: APP,
      vendorPublicUrl: publicOrigin(HOSTS.vendor),
    });
  const setUp = async (): Promise<{ demo: RunningDemo; context: EngineContext }> => ({ demo: await startLaneDemo(), context: context() });

  it.skipIf(!engine.available)(
    engine.name === 'webkit'
      ? "accepts the run's certificate at the named hosts and no other: a certificate of another CA is refused"
      : "trusts the run's CA and no other: a certificate of another CA is refused",
    async () => {
      const tab = await context().newTab();
      // WebKit's WebDriver answers a navigation its TLS check refused without an error: the tab
      // just stays where it was (about:blank), with no document from that host.
      const shown = await tab.goto(`https://${UNTRUSTED_HOST}/`).then(
        async () => ((await tab.url()) === 'about:blank' ? 'refused: the tab stayed at about:blank' : tab.evaluate(() => document.body?.textContent ?? '')),
        (error: Error) => `refused: ${error.message}`,
      );
      expect(shown).toMatch(
        {
          chromium: /^refused: .*ERR_CERT_AUTHORITY_INVALID/,
          firefox: /^refused: .*SEC_ERROR_UNKNOWN_ISSUER/,
          webkit: /^refused: the tab stayed at about:blank$/,
        }[engine.name],
      );
    },
  );

  it.skipIf(!engine.available)('first load at the public names, with a Secure, HttpOnly session cookie; rotation by message with no blank frame', async () => {
    const { demo, context } = await setUp();
    expect(demo.url).toBe(APP);
    const acme = await openApp(context, demo, 'acme');
    await waitForReady(acme);
    expect(new URL(await (await acme.frame()).url()).origin).toBe(publicOrigin(HOSTS.vendor));
    const [cookie] = (await context.cookies(APP)).filter((c) => c.name === 'northwind_session');
    expect(cookie).toMatchObject({ secure: true, httpOnly: true, sameSite: 'Lax' });

    const loaded = await acme.dashboardDocument();
    const oldToken = await latestToken(acme);
    const watch = await watchDashboardFrame(await acme.frame());
    await expireWithButton(acme);
    await waitForGeneration(acme, 2, NOTICE_EXPIRY_MS);
    const report = await watch.report();
    expect(report.states).toContain('expired');
    expect(report.blank).toBe(0);
    expect(await acme.dashboardDocument()).toBe(loaded);
    expect(await latestToken(acme)).not.toBe(oldToken);
    // Every token request went through nginx as a same-origin request and was served.
    expect(await tokenStatuses(acme)).toEqual([200, 200]);
    expect(await acme.console()).toEqual([]);
  });

  it.skipIf(!engine.available)('protocol="explo": the rotation swaps in a frame on the new token, one visible frame on every animation frame', async () => {
    const { demo, context } = await setUp();
    // The sign-in lands on /app?protocol=explo itself: a second navigation right after its redirect was aborted by Firefox (NS_BINDING_ABORTED).
    const app = await openApp(context, demo, 'initech&protocol=explo');
    await eventually('the element to be ready', async () => (await app.state()) === 'ready');
    const dashboards = async () => {
      const frames = await Promise.all((await app.tab.frames()).map(async (frame) => ({ frame, url: await frame.url().catch(() => '') })));
      return frames.filter(({ url }) => url.includes('/iframe/'));
    };
    const tokenOf = (url: string) => new URL(url).pathname.split('/')[3];
    const [old] = await dashboards();
    expect(new URL(old!.url).origin).toBe(publicOrigin(HOSTS.vendor));
    await eventually('data in the frame', () => old!.frame.evaluate(() => document.body.dataset.state === 'ready'));
    await sampleHost(app.tab);
    await expireWithButton(app);
    const fresh = await eventually(
      'a frame on a new token',
      async () => (await dashboards()).find((f) => tokenOf(f.url) !== tokenOf(old!.url)),
      NOTICE_EXPIRY_MS,
    );
    await eventually('the old frame to be dropped', async () => {
      const frames = await dashboards();
      return frames.length === 1 && frames[0]!.url === fresh.url;
    });
    await eventually('the element to be ready again', async () => (await app.state()) === 'ready');
    await sleep(200);
    const samples = await app.tab.evaluate<HostSample[]>(() => window.__hostSamples ?? []);
    expect(samples.length).toBeGreaterThan(10);
    expect(samples.filter((s) => s.visible.length !== 1)).toEqual([]);
  });

  it.skipIf(!engine.available)('signs out: the next token request is 401 and the element stops there, without retrying', async () => {
    const { demo, context } = await setUp();
    const initech = await openApp(context, demo, 'initech');
    await waitForReady(initech);
    const token = await latestToken(initech);
    const elsewhere = await context.newTab();
    await elsewhere.goto(`${demo.url}/logout`);
    expect((await context.cookies(APP)).some((c) => c.name === 'northwind_session')).toBe(false);
    const afterSignOut = (await initech.tokenRequests()).length;
    expect(demo.emulator.expireToken(token)).toBe(true);
    await eventually('the unauthenticated state', async () => (await initech.state()) === 'unauthenticated', NOTICE_EXPIRY_MS);
    // A retry, even with backoff, would come within a second or two (first delay < 1 s).
    await sleep(3_000);
    expect(await tokenStatuses(initech, afterSignOut)).toEqual([401]);
  });

  it.skipIf(!engine.available)('a client without Fetch Metadata is served only at the public origin the demo states (publicOrigin)', async () => {
    await startLaneDemo();
    const ask = (origin: string) =>
      httpsThroughProxy(topology, engine.lane, HOSTS.app, '/embed/token', {
        method: 'POST',
        headers: { origin, 'content-type': 'application/json' },
        body: '{}',
      });
    // Past the origin rule to the session check: no session here, so 401.
    expect((await ask(APP)).status).toBe(401);
    const refused = await ask('https://evil.test');
    expect(refused.status).toBe(403);
    expect(refused.body).toContain('Behind a proxy');
  });
});
