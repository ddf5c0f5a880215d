/**
 * examples/express and examples/fastify at https://app.test and examples/nextjs at
 * https://app.example.test, installed from the packed tarballs, behind the run's nginx
 * terminating TLS, their vendor (the emulator CLI) at https://vendor.test, in Chromium, Firefox
 * ESR and WebKitGTK: each signs a customer in with a `Secure` session cookie, shows its
 * dashboard, rotates the token inside the running dashboard when the vendor refuses it (no blank
 * frame), and after sign-out stops at one 401. The BFF code in them is the README's, unchanged
 * (test/packaging/examples.test.ts checks).
 */
import { beforeAll, expect, inject, it } from 'vitest';
import { eventually, sleep, useDemo, watchDashboardFrame } from '../e2e/harness.js';
import { EXAMPLE_USERS, preparedExample, startExample, type ExampleName } from '../packaging/example-apps.js';
import {
  describeTopology,
  expireAtVendor,
  HOSTS,
  publicOrigin,
  recordTokenRequests,
  signInToExample,
  startVendor,
  topologyLaunch,
  useSharedContext,
  vendorToken,
  type HostName,
} from './topology.js';

const consumerDir = inject('consumerDir');
const topology = inject('topology');

/** Each example, the host it is served at, and its own sign-out route. */
const EXAMPLES: ReadonlyArray<[ExampleName, HostName, string]> = [
  ['express', HOSTS.app, '/logout'],
  ['fastify', HOSTS.app, '/logout'],
  ['nextjs', HOSTS.next, '/api/logout'],
];

// The Next.js build (once per consumer project; minutes on a busy machine) before the scenarios,
// in a hook's time, not in the first engine's test timeout (seen: three 180 s timeouts while
// another Next.js build shared the machine).
beforeAll(async () => {
  if (topology.available) await preparedExample(consumerDir, 'nextjs');
}, 600_000);

describeTopology(topology, 'the examples in $name behind nginx with TLS at public names', (engine) => {
  const run = useDemo(engine, { launch: topologyLaunch(engine.name, topology) });
  const sharedContext = useSharedContext(run, engine);

  it.skipIf(!engine.available).each(EXAMPLES)(
    '%s at https://%s: Secure cookie, dashboard, rotation in place, sign-out with one 401',
    async (name, host, logout) => {
      const base = publicOrigin(host);
      // A vendor of each test's own: the examples share customers, and a test leaves its token dead.
      const vendor = await startVendor(consumerDir, engine.lane, [publicOrigin(HOSTS.app), publicOrigin(HOSTS.next)]);
      try {
        const example = await startExample(consumerDir, name, {
          upstreamUrl: vendor.url,
          port: engine.lane.upstreams[host],
          env: { DASHBOARD_SRC_TEMPLATE: `${publicOrigin(HOSTS.vendor)}/iframe/{dashboard}` },
        });
        try {
          const context = sharedContext();
          const tab = await context.newTab();
          await signInToExample(tab, base, EXAMPLE_USERS[0]);
          const [cookie] = (await context.cookies(base)).filter((c) => c.name === 'session');
          expect(cookie, 'the session cookie').toMatchObject({ secure: true, httpOnly: true });

          await eventually(
            'the element to be ready',
            () => tab.evaluate(() => document.querySelector('embedded-dashboard')?.getAttribute('state') === 'ready'),
            30_000,
          );
          const frame = await tab.frame((url) => url.startsWith(`${publicOrigin(HOSTS.vendor)}/iframe/`));
          await eventually('the dashboard to show data', () => frame.evaluate(() => document.body.dataset.state === 'ready'));
          expect(await frame.evaluate(() => document.querySelector('[data-testid="group-name"]')?.textContent)).toBe('Acme Corp');

          const requests = await recordTokenRequests(tab);
          const watch = await watchDashboardFrame(frame);
          await expireAtVendor(vendor, await vendorToken(vendor, 'acme', 'Acme Corp'));
          await eventually(
            'a rotation answered',
            async () => (await requests()).some((r) => r.url === `${base}/embed/token/rotate` && r.status === 200),
            15_000,
          );
          await eventually(
            'the dashboard on the new token',
            () => frame.evaluate(() => Number(document.body.dataset.tokenGeneration) === 2 && document.body.dataset.state === 'ready'),
            15_000,
          );
          expect((await watch.report()).blank).toBe(0);

          // Sign out (the app's own route clears the cookie), then the vendor refuses the token in use.
          await tab.evaluate((path) => fetch(path, { method: 'POST', redirect: 'manual' }).then(() => undefined), logout);
          expect((await context.cookies(base)).some((c) => c.name === 'session' && c.value !== '')).toBe(false);
          const afterSignOut = (await requests()).length;
          const held = await eventually('the rotated token', async () => (await requests()).findLast((r) => r.token)?.token);
          await expireAtVendor(vendor, held);
          await eventually(
            'the unauthenticated state',
            () => tab.evaluate(() => document.querySelector('embedded-dashboard')?.getAttribute('state') === 'unauthenticated'),
            15_000,
          );
          await sleep(3_000);
          expect((await requests()).slice(afterSignOut).map((r) => r.status)).toEqual([401]);
          // The browser's report of that 401 is the only console error allowed (where the driver sees the console).
          if (engine.supports.console) expect(tab.consoleMessages.filter((m) => !m.startsWith('warning:') && !/401/.test(m))).toEqual([]);
        } finally {
          await example.server.stop();
        }
      } finally {
        await vendor.stop();
      }
    },
  );
});
