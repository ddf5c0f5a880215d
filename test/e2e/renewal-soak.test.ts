/**
 * Issue 39 §1: at the shortest token lifetimes, with the element's defaults, renewals never fail.
 * One page per engine holds an element of every protocol (./renewal-host.ts) and, added as soon as
 * each has its token, a second one of the same scope (a tile rendered later); the engines run at
 * once. The soak waits for every element's scheduled renewals (conditions, no fixed sleeps), then
 * checks: no `dashboard-error`, no refused answer (every token request 200), no renewal the
 * dashboard had to ask for (its token was never found dead), no state but ready and refreshing
 * once ready, and no token request by the later tiles.
 *
 * `RENEWAL_SOAK_SECONDS` (default 32: three renewals of a 15 s token, one of a 30 s one)
 * lengthens it: `RENEWAL_SOAK_SECONDS=600 npx vitest run --project e2e test/e2e/renewal-soak.test.ts`
 * renews each 15 s token 60 times.
 */
import { describe, expect, it } from 'vitest';
import { renewalDelayMs } from '@embedded-dashboard/protocol';
import { engines } from '../support/browsers/index.js';
import { eventually, openEngineBrowser } from './harness.js';
import { SOAK_PROTOCOLS, startRenewalHost } from './renewal-host.js';

const SOAK_SECONDS = Number(process.env.RENEWAL_SOAK_SECONDS) || 32;
/** How many scheduled renewals each protocol's element waits for. */
const renewalsOf = (ttlSeconds: number) => Math.max(1, Math.floor((SOAK_SECONDS * 1000) / renewalDelayMs(ttlSeconds * 1000)));

interface PageEvent {
  id: string;
  type: string;
  detail: Record<string, unknown>;
}

describe.concurrent('renewal soak: every protocol on one page, shortest lifetimes', () => {
  for (const engine of engines()) {
    it.skipIf(!engine.available)(
      `in ${engine.name}: renews every token on schedule, no error, no refusal, no request by later tiles`,
      async () => {
        const [host, browser] = await Promise.all([startRenewalHost(), openEngineBrowser(engine)]);
        try {
          const context = await browser.newContext();
          await context.setCookie(host.url, 'soak_session', await host.session(`soak-${engine.name}`));
          const tab = await context.newTab();
          await tab.goto(host.url);
          const events = () => tab.evaluate(() => (window as unknown as { __events: PageEvent[] }).__events);
          const reasons = async (id: string) => (await events()).filter((e) => e.id === id && e.type === 'dashboard-token').map((e) => e.detail.reason);
          const initialRequests = (name: string) => host.answers.filter((a) => a.protocol === name && a.path.endsWith('/embed/token')).length;

          // Each later tile as soon as the first of its protocol holds a token (well before it is due).
          const added = new Set<string>();
          await eventually(
            'every protocol to have its token and its later tile',
            async () => {
              for (const { name } of SOAK_PROTOCOLS) {
                if (added.has(name) || !(await reasons(name)).includes('initial')) continue;
                await tab.evaluate((protocol) => (window as unknown as { addLater(name: string): void }).addLater(protocol), name);
                added.add(name);
              }
              return added.size === SOAK_PROTOCOLS.length;
            },
            45_000,
          ).catch(async (error: Error) => {
            throw new Error(`${error.message}; events ${JSON.stringify(await events())}; answers ${JSON.stringify(host.answers)}`, { cause: error });
          });
          for (const { name } of SOAK_PROTOCOLS) {
            await eventually(`${name}: the later tile's token`, async () => (await reasons(`${name}-later`)).includes('initial'));
          }

          const deadline = SOAK_SECONDS * 1500 + 60_000;
          for (const { name, ttlSeconds } of SOAK_PROTOCOLS) {
            const wanted = renewalsOf(ttlSeconds);
            await eventually(
              `${name}: ${wanted} scheduled renewals of its ${ttlSeconds} s token`,
              async () => (await reasons(name)).filter((reason) => reason === 'refresh').length >= wanted,
              deadline,
              250,
            );
          }

          const all = await events();
          expect(all.filter((e) => e.type === 'dashboard-error')).toEqual([]);
          expect(host.answers.filter((a) => a.status !== 200)).toEqual([]);
          const states = await tab.evaluate(() => (window as unknown as { __states: Record<string, string[]> }).__states);
          for (const { name } of SOAK_PROTOCOLS) {
            // One /token per protocol: the later tile took the page's; every renewal is a rotation.
            expect(initialRequests(name), name).toBe(1);
            for (const id of [name, `${name}-later`]) {
              const [first, ...rest] = await reasons(id);
              expect(first, id).toBe('initial');
              // A 'rotate' would mean the dashboard found its token dead before the renewal.
              expect(new Set(rest), id).toEqual(new Set(rest.length ? ['refresh'] : []));
              const seen = states[id] ?? [];
              expect(seen, id).toContain('ready');
              const afterReady = seen.slice(seen.indexOf('ready'));
              expect(new Set(afterReady.filter((state) => state !== 'ready' && state !== 'refreshing')), `${id}: ${afterReady.join(' ')}`).toEqual(new Set());
            }
          }
          expect(await tab.evaluate(() => document.querySelectorAll('embedded-dashboard[state="ready"]').length)).toBe(2 * SOAK_PROTOCOLS.length);
        } finally {
          await browser.close();
          await host.close();
        }
      },
      SOAK_SECONDS * 1500 + 150_000,
    );
  }
});
