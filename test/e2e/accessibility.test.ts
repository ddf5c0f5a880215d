import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { AxeResults, ImpactValue, RunOptions } from 'axe-core';
import type { Frame, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { DEMO_CUSTOMERS } from '../../demo/shared/customers.js';
import { chromiumTool } from '../support/tools.js';
import { eventually, latestToken, openApp, useChromiumDemo, waitForReady } from './chromium-harness.js';

const tool = chromiumTool();
/** Deque's axe-core engine, injected as source text into each document it checks. */
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const REPORT_DIR = fileURLToPath(new URL('../../test-results/', import.meta.url));
/** WCAG 2.0, 2.1 and 2.2, levels A and AA: the rules axe tags with these. */
const WCAG_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];
/** Deque's own advice beyond WCAG: run too, and reported, but never failing the test. */
const REPORTED_TAGS = ['best-practice'];
/** The impacts that fail the test (on a WCAG rule); `moderate` and `minor` only go to the report file. */
const FAILING: readonly ImpactValue[] = ['serious', 'critical'];

const VIEWPORTS = [
  { name: 'desktop', viewport: { width: 1280, height: 800 } },
  { name: '390px', viewport: { width: 390, height: 844 } },
] as const;

/** One rule broken in one document (or that axe could not decide there), with the elements concerned. */
interface Finding {
  where: string;
  /** `needs review`: axe could not decide (e.g. text over a frame, whose background it cannot see). */
  kind: 'violation' | 'needs review';
  rule: string;
  /** Whether the rule checks a WCAG 2.x A/AA criterion (else it is one of axe's best practices). */
  wcag: boolean;
  impact: ImpactValue;
  help: string;
  helpUrl: string;
  targets: string[];
}

const describeFinding = (f: Finding) => `${f.kind === 'violation' ? f.impact : 'needs review:'} ${f.wcag ? '' : '(best practice) '}${f.rule} in ${f.where}: ${f.help} (${f.helpUrl})\n    ${f.targets.join('\n    ')}`;

/**
 * Runs axe in one document (a page or a frame, cross-origin ones too: Playwright reaches them)
 * and returns what it found. Frames are checked on their own, so axe does not descend into them.
 */
async function axeFindings(where: string, frame: Frame): Promise<Finding[]> {
  await frame.waitForLoadState('load');
  if (!(await frame.evaluate(() => 'axe' in window))) await frame.evaluate(AXE_SOURCE);
  const options: RunOptions = {
    runOnly: { type: 'tag', values: [...WCAG_TAGS, ...REPORTED_TAGS] },
    // Each frame is checked on its own (checkPage), not through its parent.
    iframes: false,
    rules: { 'frame-tested': { enabled: false } },
    resultTypes: ['violations', 'incomplete'],
  };
  const results = await frame.evaluate((runOptions) => (window as unknown as { axe: { run(context: Document, options: RunOptions): Promise<AxeResults> } }).axe.run(document, runOptions), options);
  // A run that checked nothing would find nothing: make sure this one looked at the page.
  expect(results.passes.length, `axe checked rules in ${where}`).toBeGreaterThan(5);
  const found = (kind: Finding['kind'], list: AxeResults['violations']) =>
    list.map((result) => ({
      where,
      kind,
      rule: result.id,
      wcag: result.tags.some((tag) => WCAG_TAGS.includes(tag)),
      impact: result.impact ?? 'minor',
      help: result.help,
      helpUrl: result.helpUrl,
      targets: result.nodes.map((node) => JSON.stringify(node.target)),
    }));
  return [...found('violation', results.violations), ...found('needs review', results.incomplete)];
}

/**
 * Checks the page and every dashboard frame in it at each width of `VIEWPORTS`: one visit to a
 * state, checked at both widths (the layout follows the viewport at once: media queries).
 */
async function checkPage(where: string, page: Page): Promise<Finding[]> {
  const findings: Finding[] = [];
  const url = new URL(page.url());
  for (const { name, viewport } of VIEWPORTS) {
    await page.setViewportSize(viewport);
    findings.push(...(await axeFindings(`${where} (${url.pathname}${url.search}) at ${name}`, page.mainFrame())));
    for (const frame of page.frames().filter((f) => f !== page.mainFrame() && f.url().includes('/iframe/'))) {
      findings.push(...(await axeFindings(`${where}, dashboard frame at ${name}`, frame)));
    }
  }
  return findings;
}

/**
 * Fails on every serious or critical violation of a WCAG rule, listed one per line; writes every
 * finding (moderate and minor ones, best practices, what needs review) to test-results/axe-NAME.txt.
 */
function expectNoSeriousFindings(name: string, findings: Finding[]): void {
  mkdirSync(REPORT_DIR, { recursive: true });
  writeFileSync(`${REPORT_DIR}axe-${name}.txt`, findings.length ? `${findings.map(describeFinding).join('\n')}\n` : 'nothing found\n');
  const failing = findings.filter((f) => f.kind === 'violation' && f.wcag && FAILING.includes(f.impact));
  expect(failing.map(describeFinding)).toEqual([]);
}

describe.skipIf(!tool.available)('demo in Chromium: axe-core finds no serious WCAG 2.x A/AA violation', () => {
  const chromium = useChromiumDemo(tool.path, { sharedDemo: true });

  it('on the sign-in page, the integration guide and an unknown customer sign-in', async () => {
    const context = await chromium.newContext();
    const page = await context.newPage();
    const { demo } = chromium;
    await page.goto(`${demo.url}/`);
    await eventually('the customer cards', async () => (await page.getByTestId('customers').locator('li.customer').count()) === DEMO_CUSTOMERS.length);
    const findings = await checkPage('sign-in', page);
    await page.goto(`${demo.url}/integrate`);
    await eventually('the BFF snippet', async () => ((await page.locator('[data-snippet="bff-library"]').textContent()) ?? '').length > 0);
    findings.push(...(await checkPage('integration guide', page)));
    const refused = await page.goto(`${demo.url}/login?customer=nobody`);
    expect(refused?.status()).toBe(400);
    findings.push(...(await checkPage('unknown customer', page)));
    expectNoSeriousFindings('public', findings);
  });

  it('on the app page of every demo customer, with both frame protocols and a refused variables entry', async () => {
    // Each customer in a browser context of its own (a sign-in replaces the previous one's
    // cookie), all at once: the checks are independent and the machine has two cores.
    const perCustomer = await Promise.all(
      DEMO_CUSTOMERS.map(async (customer) => {
        const tab = await openApp(await chromium.newContext(), chromium.demo, customer.id);
        await waitForReady(tab);
        const found = await checkPage(`app of ${customer.id}`, tab.page);
        if (customer !== DEMO_CUSTOMERS[0]) return found;
        await tab.page.getByTestId('variables-input').fill('{not json');
        await tab.page.getByTestId('apply-variables').click();
        await eventually('the variables error', async () => ((await tab.page.locator('#variables-error').textContent()) ?? '').length > 0);
        found.push(...(await checkPage(`app of ${customer.id} with a refused variables entry`, tab.page)));
        await tab.page.goto(`${chromium.demo.url}/app?protocol=explo`);
        await eventually('the element to be ready', async () => (await tab.state()) === 'ready');
        found.push(...(await checkPage(`app of ${customer.id}, protocol explo`, tab.page)));
        return found;
      }),
    );
    const findings = perCustomer.flat();
    expectNoSeriousFindings('app', findings);
  });

  it('in the error states: vendor outage, signed out elsewhere, and after signing out', async () => {
    // A demo of its own: the outage is switched on for the whole vendor.
    const demo = await chromium.startDemo();
    const context = await chromium.newContext();
    const findings: Finding[] = [];

    // The outage, switched on from the demo's own button, meets a customer's first visit: no
    // token yet, so the element shows its error and retry button.
    const tab = await openApp(context, demo, 'acme');
    await waitForReady(tab);
    await tab.page.getByTestId('toggle-outage').click();
    await eventually('the outage', async () => (await tab.page.getByTestId('toggle-outage').getAttribute('aria-pressed')) === 'true');
    const firstVisit = await openApp(await chromium.newContext(), demo, 'globex');
    await eventually('the error state', async () => (await firstVisit.state()) === 'error');
    findings.push(...(await checkPage('app during a vendor outage', firstVisit.page)));
    await tab.page.getByTestId('toggle-outage').click();
    await eventually('the outage to end', async () => (await tab.page.getByTestId('toggle-outage').getAttribute('aria-pressed')) === 'false');

    const elsewhere = await context.newPage();
    await elsewhere.goto(`${demo.url}/logout`);
    expect(demo.emulator.expireToken(await latestToken(tab))).toBe(true);
    await eventually('the unauthenticated state', async () => (await tab.state()) === 'unauthenticated');
    findings.push(...(await checkPage('app after signing out in another tab', tab.page)));

    // Signing out there too lands on the sign-in page, now without a session.
    await tab.page.getByTestId('sign-out').click();
    await tab.page.waitForURL(`${demo.url}/`);
    findings.push(...(await checkPage('signed out', tab.page)));
    expectNoSeriousFindings('errors', findings);
  });
});
