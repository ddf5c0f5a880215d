import type { TestProject } from 'vitest/node';
import { engines, type EngineName, type SharedBrowser } from '../support/browsers/index.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /**
     * Per engine, what `Engine.connect` takes to reach the run's shared browsers, one per worker
     * slot of the e2e project (`VITEST_POOL_ID` 1, 2, …) where the browser takes one client at a
     * time (Firefox), else one for all (Chromium, WebKit). See `openEngineBrowser` in ./harness.ts.
     */
    e2eBrowsers: Partial<Record<EngineName, string[]>>;
  }
}

/**
 * Once per run of the e2e project: one browser per engine, of default launch options, that every
 * test file connects to instead of launching its own (a Firefox launch takes 3-17 s on this
 * two-core machine, a first MiniBrowser 10-15 s at load, and there are a dozen files). The project
 * runs `maxWorkers` files at a time: Chromium's server takes many clients, so one serves every
 * worker; Firefox's remote agent holds one WebDriver BiDi session at a time, so each worker slot
 * gets a Firefox of its own; WebKit's service (a context is a WebKitWebDriver and a MiniBrowser of
 * its own, with a fresh profile) keeps one context started ahead per worker slot. A file that needs
 * other launch options launches its own.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const slots = Math.max(1, project.config.maxWorkers ?? project.vitest.config.maxWorkers ?? 1);
  const shareable = engines().filter((engine) => engine.available && engine.serve);
  const wanted = shareable.flatMap((engine) => Array.from({ length: engine.name === 'firefox' ? slots : 1 }, () => engine));
  const started = await Promise.allSettled(wanted.map((engine) => engine.serve!(slots)));
  const served: SharedBrowser[] = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const stop = async () => {
    await Promise.all(served.map((browser) => browser.close()));
  };
  const failed = started.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  if (failed) {
    await stop();
    throw failed.reason;
  }
  const endpoints: Partial<Record<EngineName, string[]>> = {};
  wanted.forEach((engine, i) => (endpoints[engine.name] ??= []).push(served[i]!.endpoint));
  project.provide('e2eBrowsers', endpoints);
  return stop;
}
