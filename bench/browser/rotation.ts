import { passProgress } from '../lib/progress.js';
import { EMULATOR_ADMIN_ROUTES, isTokenResponse } from '@embedded-dashboard/protocol';
import type { Browser, BrowserContext, Frame, Page } from 'playwright-core';
import { analyzeRotation, analyzeSwap, type RotationFigures } from './rotation-analysis.js';
import {
  EMBED_PROBE_BINDING,
  installDashboardProbe,
  installEmbedProbe,
  installHostProbe,
  type ContentChange,
  type DashboardProbe,
  type HostProbe,
} from './rotation-probe.js';

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

/** The emulator page notices an expired token on its next data refresh (every 15 s; quick runs 2 s). */
const NOTICE_TIMEOUT_MS = 45_000;

/**
 * One rotation per run, each for a customer of its own (so no per-group rotation interval
 * interferes): load the dashboard, expire its token at the emulator, and wait for the page to
 * say it expired and the element to recover. `message` (rows 5a, 5b): the element posts the new
 * token to the running frame. `explo` (5c, 5d): the vendor embed, the token in the iframe URL;
 * the element loads the new URL in a hidden second frame and swaps it in. `explo-jwt` (5e, 5f):
 * the vendor's embed tokens, the first in the iframe URL, the renewal posted to the running frame.
 */
export async function measureRotation(setup: RotationSetup, runs: number, protocol: 'message' | 'explo' | 'explo-jwt' = 'message'): Promise<Rotation> {
  const results: RotationFigures[] = [];
  const progress = passProgress(`${protocol} rotation`, runs);
  for (let run = 0; run < runs; run++) {
    const groupId = `bench-rotation-${protocol}-${Date.now()}-${run}`;
    results.push(await (protocol === 'explo' ? swapOnce(setup, groupId) : rotateOnce(setup, groupId, protocol)));
    progress.tick();
  }
  return {
    rotationMs: results.map((result) => result.rotationMs),
    blankFrames: results.map((result) => result.blankFrames),
    sampledFrames: results.map((result) => result.sampledFrames),
    runs,
    settleMs: SETTLE_MS,
  };
}

/** A browser context signed in as the group's customer. */
async function signedInContext(setup: RotationSetup, session: string): Promise<BrowserContext> {
  const context = await setup.browser.newContext({ viewport: { width: 1024, height: 900 } });
  await context.addCookies([{ name: setup.cookieName, value: session, url: setup.pageUrl }]);
  return context;
}

async function loaded(page: Page): Promise<void> {
  await page.waitForFunction(() => (window as unknown as { __bench: { loadAt?: number } }).__bench.loadAt, null, { timeout: 30_000 });
}

/** Expires the group's current token at the emulator: the BFF hands that token to this session. */
async function expireToken(setup: RotationSetup, session: string): Promise<void> {
  const answer = await fetch(`${setup.pageUrl}/embed/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: setup.pageUrl, cookie: `${setup.cookieName}=${session}` },
    body: '{}',
  });
  const body: unknown = await answer.json();
  if (!isTokenResponse(body)) throw new Error(`POST /embed/token answered ${answer.status} without a token`);
  await expireAtEmulator(setup, body.token);
}

/** Makes `token` stop working at the emulator (a customer token, or an embed token its frame was shown with). */
async function expireAtEmulator(setup: RotationSetup, token: string): Promise<void> {
  const expired = await fetch(`${setup.emulatorUrl}${EMULATOR_ADMIN_ROUTES.expire}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token }),
  });
  if (!expired.ok) throw new Error(`emulator expire answered ${expired.status}`);
}

const hostProbe = () => (window as unknown as { __benchHostProbe: HostProbe }).__benchHostProbe;

/**
 * `message`: the BFF's token is the one the page holds. `explo-jwt`: every token request mints a
 * new embed token, so the one to expire is the page's own, read from its frame's URL
 * (`/iframe/<jwt>/<environment>`), which the emulator accepted when the frame loaded.
 */
async function rotateOnce(setup: RotationSetup, groupId: string, protocol: 'message' | 'explo-jwt'): Promise<RotationFigures> {
  const session = await setup.session(groupId);
  const context = await signedInContext(setup, session);
  try {
    const page = await context.newPage();
    await page.goto(`${setup.pageUrl}/ours${protocol === 'explo-jwt' ? '?protocol=explo-jwt' : ''}`);
    await loaded(page);
    const frame = dashboardFrame(page.frames());
    const documentId = await frame.evaluate(installDashboardProbe);
    await page.evaluate(installHostProbe, protocol === 'explo-jwt' ? 'customerJwtExpired' : 'tokenExpired');
    if (protocol === 'explo-jwt') await expireAtEmulator(setup, new URL(frame.url()).pathname.split('/')[2]!);
    else await expireToken(setup, session);

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
    const host = await page.evaluate(hostProbe);
    const figures = analyzeRotation(probe.marks, probe.samples, host.samples, SETTLE_MS);
    if (!figures) throw new Error('no completed rotation in the probe records');
    return figures;
  } finally {
    await context.close();
  }
}

/**
 * The vendor embed (`/ours?protocol=explo`): the dashboard documents report their content from
 * their first animation frame on (an init script in every frame, reporting through a binding),
 * so the hidden new frame is watched from its start and the old one until it is removed.
 */
async function swapOnce(setup: RotationSetup, groupId: string): Promise<RotationFigures> {
  const session = await setup.session(groupId);
  const context = await signedInContext(setup, session);
  try {
    const changes: ContentChange[] = [];
    await context.exposeBinding(EMBED_PROBE_BINDING, (_source, change: ContentChange) => void changes.push(change));
    await context.addInitScript(installEmbedProbe, EMBED_PROBE_BINDING);
    const page = await context.newPage();
    await page.goto(`${setup.pageUrl}/ours?protocol=explo`);
    await loaded(page);
    await page.evaluate(installHostProbe, 'customerJwtExpired');
    // The host probe identifies frames by `src`, the documents by `location.href`: they must agree.
    const firstSrc = await page.evaluate(
      () => document.querySelector('embedded-dashboard')?.shadowRoot?.querySelector<HTMLIFrameElement>('iframe:not([hidden])')?.src,
    );
    if (!firstSrc || !changes.some((change) => change.href === firstSrc && change.content)) {
      throw new Error(`the dashboard iframe (${firstSrc ?? 'none'}) reported no content to the probe`);
    }
    await expireToken(setup, session);

    await page.waitForFunction(
      (first) => {
        const probe = (window as unknown as { __benchHostProbe: HostProbe }).__benchHostProbe;
        const at = probe.expired[0];
        return at !== undefined && probe.samples.some((sample) => sample.t >= at && sample.shown.some((src) => src !== first));
      },
      firstSrc,
      { timeout: NOTICE_TIMEOUT_MS, polling: 50 },
    );
    await page.waitForTimeout(SETTLE_MS + 100);
    const host = await page.evaluate(hostProbe);
    const figures = analyzeSwap(host.samples, changes, host.expired, firstSrc, SETTLE_MS);
    if (!figures) throw new Error('no completed swap in the probe records');
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
