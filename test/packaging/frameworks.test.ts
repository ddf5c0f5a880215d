/**
 * Custom-elements-everywhere style interop, from the packed tarballs: React 19 (bare tag, and the
 * component server-rendered then hydrated), Vue 3, Svelte 5 and Angular (ngc AOT with strict
 * templates) each bind an attribute, properties (`variables` as an object) and an event of
 * `<embedded-dashboard>`, under `vite dev` with `@embedded-dashboard/vite` (emulator, dev
 * sign-in), and reach `ready` in Chromium with an empty console. Then `vite build` builds all four.
 */
import { existsSync, readFileSync } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { chromium, collectPageErrors, dashboardGroupName, openChromium, waitForDashboardReady } from './browser.js';
import { copyIntoConsumer, REPOSITORY_ROOT, run, runOk, startViteDev, type RunResult, type ServerProcess } from './consumer.js';

const consumerDir = inject('consumerDir');
const bin = (name: string) => join(consumerDir, 'node_modules/.bin', name);

/**
 * Per page: the elements on it, the text its `dashboard-load` binding writes, the list its
 * `dashboard-custom-event` binding fills, and how `variables` arrives.
 */
const PAGES = [
  {
    framework: 'react',
    elements: [
      { selector: '#bare', status: '#bare-status', events: '#bare-events', variables: 'object' },
      { selector: '#component', status: '#component-status', events: '#component-events', variables: 'string' },
    ],
  },
  { framework: 'vue', elements: [{ selector: 'embedded-dashboard', status: '#status', events: '#events', variables: 'object' }] },
  { framework: 'svelte', elements: [{ selector: 'embedded-dashboard', status: '#status', events: '#events', variables: 'object' }] },
  { framework: 'angular', elements: [{ selector: 'embedded-dashboard', status: '#status', events: '#events', variables: 'object' }] },
] as const;

/** What the emulator's sample dashboard's JS Event Button sends for customer acme, as the pages list it (shared.js). */
const JS_EVENT_TEXT = 'exportRequested {"customerName":"Acme Corp","customerProvidedId":"acme"}';

describe('the element README framework snippets', () => {
  const fixture = (file: string) => readFileSync(join(REPOSITORY_ROOT, 'test/packaging/fixtures/frameworks-app', file), 'utf8');
  it.each([
    ['vue', 'vite.config.js'],
    ['vue', 'src/App.vue'],
    ['svelte', 'src/App.svelte'],
    ['ts', 'angular/main.ts'],
  ])('the %s block from %s is the tested fixture code', (language, file) => {
    const readme = readFileSync(join(REPOSITORY_ROOT, 'packages/element/README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## Vue 3, Svelte 5, Angular'), readme.indexOf('## Attributes and properties'));
    const blocks = [...section.matchAll(/```(\w+)(?: [a-z ]+)?\n([\s\S]*?)```/g)].map((m) => m[2]!.trim());
    expect(
      blocks.some((block) => block.split('\n').every((line) => fixture(file).includes(line.trim()))),
      file,
    ).toBe(true);
  });
});

describe.skipIf(!chromium.available)('React 19, Vue 3, Svelte 5 and Angular render <embedded-dashboard>', () => {
  let app: string;
  let vite: ServerProcess | undefined;
  let browser: Browser;
  let base: string;

  /** The compiles and the build the tests below read, started in beforeAll, each beside the others (one core each). */
  let wrongCompiles: Map<string, Promise<RunResult>>;
  let production: Promise<RunResult>;

  beforeAll(async () => {
    app = await copyIntoConsumer(consumerDir, 'test/packaging/fixtures/frameworks-app', 'apps/frameworks');
    // The planted mistakes' ngc runs (their own files and outDirs) beside the real one.
    wrongCompiles = new Map(WRONG_HANDLERS.map((handler) => [handler.wrong, compileWrongHandler(handler)]));
    for (const compile of wrongCompiles.values()) compile.catch(() => undefined);
    await runOk(bin('ngc'), ['-p', 'tsconfig.angular.json'], { cwd: app });
    // `vite build` (into dist/) beside `vite dev` and the browser: it needs only the ngc output.
    production = run(bin('vite'), ['build', '--logLevel', 'warn'], { cwd: app, env: { NO_COLOR: '1' }, timeoutMs: 300_000 });
    ({ vite, base } = await startViteDev(consumerDir, app));
    browser = await openChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await vite?.stop();
  });

  it.each(PAGES)(
    '$framework: attribute, properties and event bindings work, the dashboard is ready, its own events arrive',
    async ({ framework, elements }) => {
      const context = await browser.newContext();
      const page = await context.newPage();
      const errors = collectPageErrors(page);
      await page.goto(`${base}/__embedded-dashboard/login?customer=acme&next=/${framework}.html`);
      for (const { selector, status, events, variables } of elements) {
        await waitForDashboardReady(page, errors, selector, 60_000);
        expect(await dashboardGroupName(page, selector)).toBe('Acme Corp');
        // The event binding ran the page's own handler.
        await page.waitForSelector(`${status}:has-text("loaded sales-overview")`, { timeout: 20_000 });
        const seen = await page.$eval(selector, (el) => {
          const dashboard = el as HTMLElement & { variables?: unknown; srcTemplate?: string };
          return { dashboard: (el as HTMLElement & { dashboard?: string }).dashboard, variables: dashboard.variables, srcTemplate: dashboard.srcTemplate };
        });
        // Frameworks set what the element has as a property (Lit does not reflect it), the rest as attributes.
        expect(seen.dashboard).toBe('sales-overview');
        expect(seen.srcTemplate).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/iframe\/\{dashboard\}$/);
        expect(typeof seen.variables).toBe(variables);
        const asObject = typeof seen.variables === 'string' ? JSON.parse(seen.variables) : seen.variables;
        expect(asObject).toEqual({ region: 'EU', seats: 3, beta: true });
        // The dashboard itself got them (the emulator shows the variables it was sent).
        const frame = await (await page.$(`${selector} iframe`))!.contentFrame();
        await frame!.waitForFunction(
          () =>
            ['region=EU', 'seats=3', 'beta=true'].every((pair) => {
              const [name, value] = pair.split('=');
              return document.querySelector<HTMLInputElement>(`[data-testid="variable-input"][name="${name}"]`)?.value === value;
            }),
          undefined,
          { timeout: 20_000 },
        );
        // The dashboard's own event (dashboard-custom-event), bound the framework's way: its JS Event Button, clicked in the frame.
        await frame!.evaluate(() => document.querySelector<HTMLButtonElement>('[data-testid="js-event-button"]')!.click());
        await page.waitForSelector(`${events} li:text-is('${JS_EVENT_TEXT}')`, { timeout: 20_000, state: 'attached' });
      }
      expect(errors).toEqual([]);
      await context.close();
    },
  );

  /** Planted mistakes: a handler typed for another event than the one bound, each fixed up so that only the template is wrong. */
  const WRONG_HANDLERS = [
    {
      event: 'dashboard-load',
      expected: 'DashboardLoadEvent',
      wrong: 'DashboardErrorEvent',
      edit: (source: string) =>
        source
          .replace('onLoad(event: DashboardLoadEvent): void {', 'onLoad(event: DashboardErrorEvent): void {')
          .replace('event.detail.dashboardId', 'event.detail.code'),
    },
    {
      event: 'dashboard-custom-event',
      expected: 'DashboardCustomEvent',
      wrong: 'DashboardResizeEvent',
      edit: (source: string) =>
        source
          .replace('onCustomEvent(event: DashboardCustomEvent): void {', 'onCustomEvent(event: DashboardResizeEvent): void {')
          .replace('`${event.detail.name} ${JSON.stringify(event.detail.detail)}`', 'String(event.detail.height)'),
    },
  ];

  /** ngc of angular/main.ts with `edit` applied (the handler typed for another event), in a tsconfig and outDir of its own. */
  async function compileWrongHandler({ wrong, edit }: (typeof WRONG_HANDLERS)[number]): Promise<RunResult> {
    const source = await readFile(join(app, 'angular/main.ts'), 'utf8');
    const edited = edit(
      source.replace(
        "import type { DashboardCustomEvent, DashboardLoadEvent } from '@embedded-dashboard/element';",
        `import type { DashboardCustomEvent, DashboardLoadEvent, ${wrong} } from '@embedded-dashboard/element';`,
      ),
    );
    if (!edited.includes(`(event: ${wrong}): void`)) throw new Error(`the ${wrong} edit no longer applies to angular/main.ts`);
    const name = `wrong-${wrong}`;
    await writeFile(join(app, `angular/${name}.ts`), edited);
    const config = JSON.parse(await readFile(join(app, 'tsconfig.angular.json'), 'utf8')) as { files: string[]; compilerOptions: { outDir: string } };
    await writeFile(
      join(app, `tsconfig.angular-${name}.json`),
      JSON.stringify({ ...config, files: [`angular/${name}.ts`], compilerOptions: { ...config.compilerOptions, outDir: `angular-${name}` } }),
    );
    return run(bin('ngc'), ['-p', `tsconfig.angular-${name}.json`], { cwd: app });
  }

  it.each(WRONG_HANDLERS)(
    "Angular's strict templates type the handler of $event from the element's event map: a $wrong handler fails ngc",
    async ({ expected, wrong }) => {
      const result = await wrongCompiles.get(wrong)!;
      expect(result.code).not.toBe(0);
      const output = `${result.stdout}${result.stderr}`.replace(/\x1b\[[0-9;]*m/g, '');
      // The one error is the template's: the bound event's type against the handler's.
      expect(output.match(/ error (TS|NG)\d+/g)).toEqual([' error TS2345']);
      expect(output).toContain(`Argument of type '${expected}' is not assignable to parameter of type '${wrong}'`);
    },
  );

  it('vite build builds all four pages, with none of the dev plugin in the output', async () => {
    const built = await production;
    expect(built.code, `${built.stdout}\n${built.stderr}`).toBe(0);
    for (const { framework } of PAGES) expect(existsSync(join(app, 'dist', `${framework}.html`)), framework).toBe(true);
    const assets = join(app, 'dist/assets');
    const code = (await Promise.all((await readdir(assets)).filter((f) => f.endsWith('.js')).map((f) => readFile(join(assets, f), 'utf8')))).join('\n');
    expect(code).toContain('embedded-dashboard');
    expect(code).not.toMatch(/__embedded-dashboard|127\.0\.0\.1:\d+/);
  });
});
