import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { BFF_ROUTES, DEFAULT_BFF_BASE_PATH } from '@embedded-dashboard/protocol';
import { freePort } from '../../test/support/ports.js';
import { startEmulator } from '../lib/emulator.js';
import { distScript, repoDir } from '../lib/paths.js';
import { startServerProcess } from '../lib/process.js';
import { NotAvailable } from '../lib/row.js';
import { signSession } from '../lib/session.js';
import { PAGES_LISTENING_PREFIX } from './page-server.js';

/** The session cookie the host pages' BFF reads. */
export const COOKIE = 'bench_session';
/** Quick runs' dashboard data refresh (the emulator's default is 15 s): a shorter wait for rows 5 to begin. */
const QUICK_DASHBOARD_REFRESH_SECONDS = 2;

export interface BrowserServers {
  /** The standalone element script the pages serve. */
  elementScript: string;
  emulatorUrl: string;
  pagesUrl: string;
  /** Stops both servers. */
  stop(): Promise<void>;
}

/**
 * The servers of rows 4 and 5, each in a child process of its own: the emulator (the dashboard
 * host) and the host pages (with the BFF library mounted, bench/browser/page-server.ts).
 */
export async function startBrowserServers(quick: boolean): Promise<BrowserServers> {
  const elementScript = join(repoDir, 'packages', 'element', 'dist', 'standalone', 'embedded-dashboard.js');
  if (!existsSync(elementScript)) throw new NotAvailable('packages/element/dist/standalone/embedded-dashboard.js is missing (element not built)');
  // Quick (CI): the dashboards re-read their data every 2 s instead of 15 s, so each rotation
  // row's wait for the page to notice its expired token (not part of any figure: rows 5 count
  // from the expiry event) costs about 1 s instead of about 7.5 s. Full runs keep 15 s.
  const emulator = await startEmulator('browser-emulator', quick ? ['--dashboard-refresh', String(QUICK_DASHBOARD_REFRESH_SECONDS)] : []);
  try {
    // The host pages' server mounts the BFF (the library) in its own process, as an integrator's
    // Node server does; the BFF must know the pages' origin: the port is chosen first.
    const pagesOrigin = `http://127.0.0.1:${await freePort()}`;
    const pageServer = await startServerProcess(distScript('browser/page-server-main.js'), [], {
      readyPrefix: PAGES_LISTENING_PREFIX,
      logName: 'browser-pages',
      env: {
        PAGES_EMULATOR_URL: emulator.url,
        PAGES_ELEMENT_SCRIPT: elementScript,
        PAGES_SESSION_COOKIE: COOKIE,
        PAGES_PORT: new URL(pagesOrigin).port,
      },
    });
    return {
      elementScript,
      emulatorUrl: emulator.url,
      pagesUrl: pageServer.url,
      stop: async () => {
        await pageServer.stop().catch(() => undefined);
        await emulator.stop();
      },
    };
  } catch (error) {
    await emulator.stop().catch(() => undefined);
    throw error;
  }
}

/**
 * The time-to-dashboard pages' session (customer `bench-ttd`) and that customer's token, fetched
 * ahead from the pages' BFF as a server-rendered page would have it: the baseline's iframe URL
 * carries it.
 */
export async function ttdSession(pagesUrl: string): Promise<{ session: string; token: string }> {
  const session = await signSession('bench-ttd');
  const answer = await fetch(`${pagesUrl}${DEFAULT_BFF_BASE_PATH}${BFF_ROUTES.token}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: pagesUrl, cookie: `${COOKIE}=${session}` },
    body: '{}',
  });
  if (answer.status !== 200) throw new Error(`POST /embed/token answered ${answer.status}: ${(await answer.text()).slice(0, 200)}`);
  const { token } = (await answer.json()) as { token: string };
  return { session, token };
}

/** The judged pair of rows 4m/4n: the server-rendered baseline, and the page of the design the targets are judged on. */
export function judgedPages(pagesUrl: string, token: string): { baseline: string; fragment: string } {
  return {
    baseline: `${pagesUrl}/baseline?token=${encodeURIComponent(token)}`,
    fragment: `${pagesUrl}/ours?src=fragment&first=inline&frame=server&late=1`,
  };
}
