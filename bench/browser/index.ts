import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../../test/support/chromium.js';
import { freePort } from '../../test/support/ports.js';
import { chromiumTool } from '../../test/support/tools.js';
import { startBff, tokenUrl } from '../lib/bff.js';
import { startEmulator } from '../lib/emulator.js';
import { formatMs, formatRatio } from '../lib/format.js';
import { distScript, repoDir } from '../lib/paths.js';
import { startServerProcess } from '../lib/process.js';
import { NotAvailable, judgeTiming, unavailableRows, type Row } from '../lib/row.js';
import { signSession } from '../lib/session.js';
import { ratio } from '../lib/stats.js';
import { PAGES_LISTENING_PREFIX } from './page-server.js';
import { measureRotation } from './rotation.js';
import { measureTimeToDashboard, type TimeToDashboard } from './time-to-dashboard.js';

const TTD = ['4', 'time to dashboard in Chromium (navigation start → dashboard-load)'] as const;
const ROTATION_TIME = ['5a', 'rotation: tokenExpired → dashboard running on the new token'] as const;
const ROTATION_BLANK = ['5b', 'rotation: animation frames without dashboard content'] as const;
const TTD_TARGET = 1.25;
const COOKIE = 'bench_session';

/**
 * Rows 4 and 5, in Debian's headless Chromium: the emulator (dashboard host), the BFF and the
 * host pages each in a child process of their own.
 */
export async function runBrowser(quick: boolean): Promise<Row[]> {
  const stoppers: Array<() => Promise<void>> = [];
  const rows: Row[] = [];
  try {
    const elementScript = join(repoDir, 'packages', 'element', 'dist', 'standalone', 'embedded-dashboard.js');
    if (!existsSync(elementScript)) throw new NotAvailable('packages/element/dist/standalone/embedded-dashboard.js is missing (element not built)');
    const chromium = chromiumTool();
    if (!chromium.available) throw new NotAvailable('chromium not installed');

    const emulator = await startEmulator('browser-emulator');
    stoppers.push(emulator.stop);
    // The BFF must know the pages' origin and the pages the BFF's URL: the port is chosen first.
    const pagesOrigin = `http://127.0.0.1:${await freePort()}`;
    const bff = await startBff({
      upstreamUrl: emulator.url,
      logName: 'browser-bff',
      env: { EMBED_SESSION_COOKIE: COOKIE, EMBED_ALLOWED_ORIGINS: pagesOrigin },
    });
    stoppers.push(() => bff.stop());
    const pageServer = await startServerProcess(distScript('browser/page-server-main.js'), [], {
      readyPrefix: PAGES_LISTENING_PREFIX,
      logName: 'browser-pages',
      env: {
        PAGES_EMULATOR_URL: emulator.url,
        PAGES_ELEMENT_SCRIPT: elementScript,
        PAGES_BFF_URL: bff.url,
        PAGES_PORT: new URL(pagesOrigin).port,
      },
    });
    stoppers.push(() => pageServer.stop());
    const pagesUrl = pageServer.url;
    const browser: Browser = await launchChromium(chromium.path);
    stoppers.push(() => browser.close());

    let ttd: TimeToDashboard | undefined;
    try {
      // The baseline's token is the same group's, fetched ahead as a server-rendered page would have it.
      const session = await signSession('bench-ttd');
      const answer = await fetch(tokenUrl(bff.url), {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: pagesUrl, cookie: `${COOKIE}=${session}` },
        body: '{}',
      });
      if (answer.status !== 200) throw new Error(`POST /embed/token answered ${answer.status}: ${(await answer.text()).slice(0, 200)}`);
      const { token } = (await answer.json()) as { token: string };
      ttd = await measureTimeToDashboard(
        browser,
        { ours: `${pagesUrl}/ours`, baseline: `${pagesUrl}/baseline?token=${encodeURIComponent(token)}` },
        { viewport: { width: 1024, height: 900 }, cookies: [{ name: COOKIE, value: session, url: pagesUrl }] },
        quick ? 2 : 15,
      );
      const r = ratio(ttd.oursMs, ttd.baselineMs);
      rows.push({
        id: TTD[0],
        metric: `${TTD[1]}, median of ${ttd.runs}`,
        ours: formatMs(ttd.oursMs),
        baseline: `token in iframe URL ${formatMs(ttd.baselineMs)}`,
        ratio: formatRatio(r),
        target: `≤ ${TTD_TARGET.toFixed(2)}×`,
        result: judgeTiming(r <= TTD_TARGET, quick),
      });
    } catch (error) {
      rows.push(...unavailableRows([TTD], error));
    }

    try {
      const rotation = await measureRotation(
        { browser, pageUrl: pagesUrl, emulatorUrl: emulator.url, session: signSession, cookieName: COOKIE },
        quick ? 1 : 3,
      );
      const reload = ttd?.baselineMs ?? Number.NaN;
      rows.push({
        id: ROTATION_TIME[0],
        metric: `${ROTATION_TIME[1]}, median of ${rotation.runs}`,
        ours: formatMs(rotation.rotationMs),
        baseline: `page load, token in iframe URL ${formatMs(reload)}`,
        ratio: formatRatio(ratio(rotation.rotationMs, reload)),
        target: '< 1.00×',
        result: judgeTiming(rotation.rotationMs < reload, quick),
      });
      rows.push({
        id: ROTATION_BLANK[0],
        metric: `${ROTATION_BLANK[1]} (worst of ${rotation.runs}; ≥ ${rotation.sampledFrames} frames sampled)`,
        ours: String(rotation.blankFrames),
        baseline: 'none (absolute target)',
        ratio: '',
        target: '0',
        result: rotation.blankFrames === 0 ? 'pass' : 'miss',
      });
    } catch (error) {
      rows.push(...unavailableRows([ROTATION_TIME, ROTATION_BLANK], error));
    }
    return rows;
  } catch (error) {
    return unavailableRows([TTD, ROTATION_TIME, ROTATION_BLANK], error);
  } finally {
    for (const stop of stoppers.reverse()) await stop().catch(() => undefined);
  }
}

