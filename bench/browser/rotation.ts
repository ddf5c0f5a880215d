import { EMULATOR_ADMIN_ROUTES, isTokenResponse } from '@embedded-dashboard/protocol';
import type { Browser, Frame } from 'playwright-core';
import { analyzeRotation, type RotationFigures } from './rotation-analysis.js';
import { installDashboardProbe, installHostProbe, type DashboardProbe, type FrameSample } from './rotation-probe.js';

export interface RotationSetup {
  browser: Browser;
  pageUrl: string;
  emulatorUrl: string;
  /** Signs a session cookie value for a customer. */
  session(groupId: string): Promise<string>;
  cookieName: string;
}

/** Per run, in run order. */
export interface Rotation {
  rotationMs: number[];
  blankFrames: number[];
  sampledFrames: number[];
  runs: number;
  /** How long after the new data frames are still sampled. */
  settleMs: number;
}

/** Frames keep being sampled this long after the dashboard shows the new data. */
const SETTLE_MS = 500;

/** The emulator page notices an expired token on its next data refresh (every 15 s). */
const NOTICE_TIMEOUT_MS = 45_000;

/**
 * One rotation per run, each for a customer of its own (so no per-group rotation interval
 * interferes): load the dashboard, expire its token at the emulator, and wait for the page to
 * say `tokenExpired` and the element to swap in the new token.
 */
export async function measureRotation(setup: RotationSetup, runs: number): Promise<Rotation> {
  const results: RotationFigures[] = [];
  for (let run = 0; run < runs; run++) results.push(await rotateOnce(setup, `bench-rotation-${Date.now()}-${run}`));
  return {
    rotationMs: results.map((result) => result.rotationMs),
    blankFrames: results.map((result) => result.blankFrames),
    sampledFrames: results.map((result) => result.sampledFrames),
    runs,
    settleMs: SETTLE_MS,
  };
}

async function rotateOnce(setup: RotationSetup, groupId: string): Promise<RotationFigures> {
  const session = await setup.session(groupId);
  const context = await setup.browser.newContext({ viewport: { width: 1024, height: 900 } });
  try {
    await context.addCookies([{ name: setup.cookieName, value: session, url: setup.pageUrl }]);
    const page = await context.newPage();
    await page.goto(`${setup.pageUrl}/ours`);
    await page.waitForFunction(() => (window as unknown as { __bench: { loadAt?: number } }).__bench.loadAt, null, { timeout: 30_000 });
    const frame = dashboardFrame(page.frames());
    const documentId = await frame.evaluate(installDashboardProbe);
    await page.evaluate(installHostProbe);

    // The token the dashboard holds is the group's current one: the BFF hands it to this session.
    const answer = await fetch(`${setup.pageUrl}/embed/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: setup.pageUrl, cookie: `${setup.cookieName}=${session}` },
      body: '{}',
    });
    const body: unknown = await answer.json();
    if (!isTokenResponse(body)) throw new Error(`POST /embed/token answered ${answer.status} without a token`);
    const expired = await fetch(`${setup.emulatorUrl}${EMULATOR_ADMIN_ROUTES.expire}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: body.token }),
    });
    if (!expired.ok) throw new Error(`emulator expire answered ${expired.status}`);

    await frame.waitForFunction(
      () => {
        const marks = (window as unknown as { __benchProbe: DashboardProbe }).__benchProbe.marks;
        const at = marks.findIndex((mark) => mark.state === 'expired');
        return at !== -1 && marks.slice(at).some((mark) => mark.state === 'ready' && mark.generation > (marks[at]?.generation ?? 0));
      },
      null,
      { timeout: NOTICE_TIMEOUT_MS, polling: 50 },
    );
    // Frames go on being sampled for the settle time (and one more) after the swap.
    await page.waitForTimeout(SETTLE_MS + 100);
    const probe = await frame.evaluate(() => (window as unknown as { __benchProbe: DashboardProbe }).__benchProbe);
    if (probe.documentId !== documentId) throw new Error('the dashboard iframe reloaded during rotation');
    const hostSamples = await page.evaluate(() => (window as unknown as { __benchHostSamples: FrameSample[] }).__benchHostSamples);
    const figures = analyzeRotation(probe.marks, probe.samples, hostSamples, SETTLE_MS);
    if (!figures) throw new Error('no completed rotation in the probe records');
    return figures;
  } finally {
    await context.close();
  }
}

function dashboardFrame(frames: readonly Frame[]): Frame {
  const frame = frames.find((candidate) => new URL(candidate.url(), 'http://x').pathname.startsWith('/iframe/'));
  if (!frame) throw new Error('the page has no dashboard iframe');
  return frame;
}
