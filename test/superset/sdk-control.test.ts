import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { SignJWT } from 'jose';
import { describe, expect, inject, it } from 'vitest';
import { DEFAULT_SUPERSET_AUDIENCE, DEFAULT_SUPERSET_GUEST_SECRET, SAMPLE_SUPERSET_DASHBOARDS } from '@embedded-dashboard/emulator';
import { chromiumTool } from '../support/tools.js';
import { useBrowserHost } from './browser-host.js';

/**
 * The control: Superset's own `@superset-ui/embedded-sdk` (0.4.0, its UMD bundle as a page loads
 * it) embedding the real Superset 6.1.0 and the emulator's Superset mode, in Chromium. Both must
 * render the customer's rows, and what the SDK does with height and renewal is recorded: it never
 * sizes the frame (the iframe keeps the browser's default 150 px content height inside a 300 px
 * mount point, whatever the dashboard's own height), and it renews the guest token by a second
 * `guestToken` emit in the same frame.
 */

const real = inject('superset');
const chromium = chromiumTool();
const sdkBundle = readFileSync(createRequire(import.meta.url).resolve('@superset-ui/embedded-sdk/bundle/index.js'), 'utf8');

interface Target {
  url: string;
  uuid: string;
  secret: string;
  audience: string;
}

/**
 * The lifetime of the tokens the host hands the SDK. The SDK fetches its first token when it mounts
 * but hands it over only at its frame's load, and Superset's page checks the first token it gets
 * once (an expired one shows "Something went wrong with embedded authentication" for good): the
 * frame's load on a loaded machine must fit in it. The SDK renews max(10 s, exp - now) - 5 s after
 * each hand-over (@superset-ui/embedded-sdk, lib/guestTokenRefresh.js), so within the test.
 */
const TOKEN_SECONDS = 30;

/** A token for the SDK: signed with the shared secret, TOKEN_SECONDS long. */
const tokenFor = (t: Target) => {
  const now = Date.now() / 1000;
  return new SignJWT({
    user: { username: 'sdk-control' },
    resources: [{ type: 'dashboard', id: t.uuid }],
    rls_rules: [{ clause: "customer_id = 'acme'" }],
    iat: now,
    exp: now + TOKEN_SECONDS,
    aud: t.audience,
    type: 'guest',
  })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .sign(new TextEncoder().encode(t.secret));
};

let current: Target | undefined;
let tokenRequests = 0;

const shared = useBrowserHost(chromium, (req, res) => {
  if (req.url === '/sdk.js') return void res.writeHead(200, { 'content-type': 'text/javascript' }).end(sdkBundle);
  if (req.url === '/token') {
    tokenRequests++;
    return void tokenFor(current!).then((token) => res.writeHead(200, { 'content-type': 'text/plain' }).end(token));
  }
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><meta charset="utf-8"><title>sdk control</title>
<div id="mount" style="width:800px;height:300px"></div>
<script src="/sdk.js"></script>
<script>
window.embedded = supersetEmbeddedSdk.embedDashboard({
  id: ${JSON.stringify(current?.uuid ?? '')},
  supersetDomain: ${JSON.stringify(current?.url ?? '')},
  mountPoint: document.getElementById('mount'),
  fetchGuestToken: () => fetch('/token').then((r) => r.text()),
  dashboardUiConfig: { hideTitle: true },
});
</script>`);
});

const targets: { name: string; skip: boolean; target: () => Target }[] = [
  {
    name: 'real Superset 6.1.0',
    skip: !real || !chromium.available,
    target: () => ({ url: real!.url, uuid: real!.dashboards.sales.uuid, secret: real!.guestToken.secret, audience: real!.guestToken.audience }),
  },
  {
    name: 'emulator (Superset mode)',
    skip: !chromium.available,
    target: () => ({
      url: shared.emulator!.url,
      uuid: SAMPLE_SUPERSET_DASHBOARDS[0]!.uuid,
      secret: DEFAULT_SUPERSET_GUEST_SECRET,
      audience: DEFAULT_SUPERSET_AUDIENCE,
    }),
  },
];

describe.each(targets)('@superset-ui/embedded-sdk as a control: $name', ({ skip, target }) => {
  it.skipIf(skip)(
    'renders the customer’s rows, leaves the frame at the default 150 px, and renews the token in the same frame',
    async () => {
      current = target();
      tokenRequests = 0;
      const page = await shared.browser!.newPage();
      try {
        await page.goto(shared.hostUrl);
        await page.waitForFunction(() => document.querySelector('iframe') !== null);
        const frame = page.frames().find((f) => f !== page.mainFrame())!;
        await frame.waitForFunction(() => document.body.innerText.includes('anvil'), undefined, { timeout: 90_000 });
        const text = await frame.evaluate(() => document.body.innerText);
        for (const other of ['reactor', 'stapler', 'ticket']) expect(text).not.toContain(other);

        // Height: the SDK has no auto height and sets none: the iframe keeps the browser's default
        // 150 px, not even the mount point's 300 px, whatever the dashboard's height, which only
        // getScrollSize reports (and the host must apply itself).
        const frameHeight = await page.evaluate(() => document.querySelector('iframe')!.clientHeight);
        const scroll = await page.evaluate(async () =>
          (await (window as unknown as { embedded: Promise<{ getScrollSize(): Promise<{ height: number }> }> }).embedded).getScrollSize(),
        );
        expect(frameHeight).toBe(150);
        expect(scroll.height).toBeGreaterThanOrEqual(frameHeight);

        // Renewal: a second token fetch and guestToken emit, in the same document.
        await frame.evaluate(() => ((window as unknown as { marker: string }).marker = 'same document'));
        const before = tokenRequests;
        // Asked at most TOKEN_SECONDS - 5 s after the hand-over, which came before the rows showed.
        await expect.poll(() => tokenRequests, { timeout: (TOKEN_SECONDS + 15) * 1000, interval: 250 }).toBeGreaterThan(before);
        expect(await frame.evaluate(() => (window as unknown as { marker?: string }).marker)).toBe('same document');
        expect(await page.evaluate(() => document.querySelectorAll('iframe').length)).toBe(1);
      } finally {
        await page.close();
      }
    },
    180_000,
  );
});
