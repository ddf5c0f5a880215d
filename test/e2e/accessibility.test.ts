import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { AxeResults, ImpactValue, RunOptions } from 'axe-core';
import { describe, expect, it } from 'vitest';
import { DEMO_CUSTOMERS } from '../../demo/shared/customers.js';
import { engines, type Evaluator, type Tab } from '../support/browsers/index.js';
import { clickTestId, eventually, latestToken, openApp, setOutage, testId, useDemo, waitForReady } from './harness.js';

/** Deque's axe-core engine, injected as source text into each document it checks. */
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const REPORT_DIR = fileURLToPath(new URL('../../test-results/', import.meta.url));
/** WCAG 2.0, 2.1 and 2.2, levels A and AA: the rules axe tags with these. */
const WCAG_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];
/** Deque's own advice beyond WCAG: run too, and reported, but never failing the test. */
const REPORTED_TAGS = ['best-practice'];
/** The impacts that fail the test (on a WCAG rule); `moderate` and `minor` only go to the report file. */
const FAILING: readonly ImpactValue[] = ['serious', 'critical'];

/** Desktop and a phone's width (or the engine's narrowest: 447 px in WebKit's MiniBrowser). */
const viewports = (minWidth: number) => [
  { name: 'desktop', viewport: { width: 1280, height: 800 } },
  { name: `${Math.max(390, minWidth)}px`, viewport: { width: Math.max(390, minWidth), height: 844 } },
];

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

const describeFinding = (f: Finding) =>
  `${f.kind === 'violation' ? f.impact : 'needs review:'} ${f.wcag ? '' : '(best practice) '}${f.rule} in ${f.where}: ${f.help} (${f.helpUrl})\n    ${f.targets.join('\n    ')}`;

/**
 * Runs axe in one document (a page or a frame, cross-origin ones too: every driver reaches them)
 * and returns what it found. Frames are checked on their own, so axe does not descend into them.
 */
async function axeFindings(where: string, frame: Evaluator): Promise<Finding[]> {
  await eventually(`${where} loaded`, () => frame.evaluate(() => document.readyState === 'complete'));
  if (!(await frame.evaluate(() => 'axe' in window))) await frame.evaluateScript(AXE_SOURCE);
  const options: RunOptions = {
    runOnly: { type: 'tag', values: [...WCAG_TAGS, ...REPORTED_TAGS] },
    // Each frame is checked on its own (checkPage), not through its parent.
    iframes: false,
    rules: { 'frame-tested': { enabled: false } },
    resultTypes: ['violations', 'incomplete'],
  };
  // As JSON text: the results nest deeper than some drivers copy objects (Firefox's BiDi cuts them short).
  const results = JSON.parse(
    await frame.evaluate(
      async (runOptions) =>
        JSON.stringify(
          await (window as unknown as { axe: { run(context: Document, options: RunOptions): Promise<AxeResults> } }).axe.run(document, runOptions),
        ),
      options,
    ),
  ) as AxeResults;
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
async function checkPage(where: string, page: Tab, minWidth: number): Promise<Finding[]> {
  const findings: Finding[] = [];
  const url = new URL(await page.url());
  for (const { name, viewport } of viewports(minWidth)) {
    await page.setViewport(viewport);
    findings.push(...(await axeFindings(`${where} (${url.pathname}${url.search}) at ${name}`, page)));
    for (const frame of await page.frames()) {
      if ((await frame.url()).includes('/iframe/')) findings.push(...(await axeFindings(`${where}, dashboard frame at ${name}`, frame)));
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

/**
 * Each check visits several pages at two widths and runs axe in every document: 3–45 s on a
 * quiet machine, past the e2e project's 60 s on a loaded one (seen in CI runs at load 13–29).
 * A bound on a hung run, not a timed assertion.
 */
const A11Y_TEST_TIMEOUT_MS = 180_000;

/** The engines at once, each engine's checks in order (each engine has its own browser and demo). */
describe.concurrent.each(engines())('demo in $name', (engine) => {
  describe.sequential('axe-core finds no serious WCAG 2.x A/AA violation', () => {
    const run = useDemo(engine, { sharedDemo: true });
    const minWidth = engine.supports.minViewportWidth;
    const report = (name: string) => `${engine.name}-${name}`;

    it.skipIf(!engine.available)(
      'on the sign-in page, the integration guide and an unknown customer sign-in',
      async () => {
        const page = await (await run.newContext()).newTab();
        const { demo } = run;
        await page.goto(`${demo.url}/`);
        await eventually('the customer cards', () =>
          page.evaluate((n) => document.querySelectorAll('[data-testid="customers"] li.customer').length === n, DEMO_CUSTOMERS.length),
        );
        const findings = await checkPage('sign-in', page, minWidth);
        await page.goto(`${demo.url}/integrate`);
        await eventually('the BFF snippet', () => page.evaluate(() => (document.querySelector('[data-snippet="bff-library"]')?.textContent ?? '').length > 0));
        findings.push(...(await checkPage('integration guide', page, minWidth)));
        const refused = await page.goto(`${demo.url}/login?customer=nobody`);
        expect(refused).toBe(run.browser.supports.navigationStatus ? 400 : 0);
        findings.push(...(await checkPage('unknown customer', page, minWidth)));
        expectNoSeriousFindings(report('public'), findings);
      },
      A11Y_TEST_TIMEOUT_MS,
    );

    it.skipIf(!engine.available)(
      'on the app page of every demo customer, with both frame protocols and a refused variables entry',
      async () => {
        // Each customer in a browser context of its own (a sign-in replaces the previous one's
        // cookie), all at once: the checks are independent and the machine has two cores.
        const perCustomer = await Promise.all(
          DEMO_CUSTOMERS.map(async (customer) => {
            const app = await openApp(await run.newContext(), run.demo, customer.id);
            await waitForReady(app);
            const found = await checkPage(`app of ${customer.id}`, app.tab, minWidth);
            if (customer !== DEMO_CUSTOMERS[0]) return found;
            await app.tab.evaluate((selector) => {
              const input = document.querySelector<HTMLTextAreaElement>(selector)!;
              input.value = '{not json';
              input.dispatchEvent(new Event('input', { bubbles: true }));
            }, testId('variables-input'));
            await clickTestId(app, 'apply-variables');
            await eventually('the variables error', () => app.tab.evaluate(() => (document.querySelector('#variables-error')?.textContent ?? '').length > 0));
            found.push(...(await checkPage(`app of ${customer.id} with a refused variables entry`, app.tab, minWidth)));
            await app.tab.goto(`${run.demo.url}/app?protocol=explo`);
            await eventually('the element to be ready', async () => (await app.state()) === 'ready');
            found.push(...(await checkPage(`app of ${customer.id}, protocol explo`, app.tab, minWidth)));
            return found;
          }),
        );
        expectNoSeriousFindings(report('app'), perCustomer.flat());
      },
      A11Y_TEST_TIMEOUT_MS,
    );

    it.skipIf(!engine.available)(
      'in the error states: vendor outage, signed out elsewhere, and after signing out',
      async () => {
        // A demo of its own: the outage is switched on for the whole vendor.
        const demo = await run.startDemo();
        const context = await run.newContext();
        const findings: Finding[] = [];

        // The outage, switched on from the demo's own button, meets a customer's first visit: no
        // token yet, so the element shows its error and retry button.
        const app = await openApp(context, demo, 'acme');
        await waitForReady(app);
        await setOutage(app, true);
        const firstVisit = await openApp(await run.newContext(), demo, 'globex');
        await eventually('the error state', async () => (await firstVisit.state()) === 'error');
        findings.push(...(await checkPage('app during a vendor outage', firstVisit.tab, minWidth)));
        await setOutage(app, false);

        const elsewhere = await context.newTab();
        await elsewhere.goto(`${demo.url}/logout`);
        expect(demo.emulator.expireToken(await latestToken(app))).toBe(true);
        await eventually('the unauthenticated state', async () => (await app.state()) === 'unauthenticated');
        findings.push(...(await checkPage('app after signing out in another tab', app.tab, minWidth)));

        // Signing out there too lands on the sign-in page, now without a session.
        await clickTestId(app, 'sign-out');
        await eventually('the sign-in page', async () => (await app.tab.url()) === `${demo.url}/`);
        findings.push(...(await checkPage('signed out', app.tab, minWidth)));
        expectNoSeriousFindings(report('errors'), findings);
      },
      A11Y_TEST_TIMEOUT_MS,
    );
  });
});
