import type { TestProject } from 'vitest/node';
import { engines, type EngineName, type SharedBrowser } from '../support/browsers/index.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Per engine, what `Engine.connect` takes to reach the run's shared browser (see `openEngineBrowser` in ./harness.ts). */
    e2eBrowsers: Partial<Record<EngineName, string>>;
  }
}

/**
 * Once per run of the e2e project: one browser per engine that can be shared (Chromium, Firefox),
 * of default launch options, that every test file connects to instead of launching its own (a
 * Firefox launch takes 3-17 s on this two-core machine, and there are a dozen files). A file that
 * needs other launch options launches its own. WebKit has nothing worth sharing (each context is
 * a MiniBrowser of its own; the WebKit driver starts the next one while a test runs).
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const shareable = engines().filter((engine) => engine.available && engine.serve);
  const started = await Promise.allSettled(shareable.map((engine) => engine.serve!()));
  const served: SharedBrowser[] = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const stop = async () => {
    await Promise.all(served.map((browser) => browser.close()));
  };
  const failed = started.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  if (failed) {
    await stop();
    throw failed.reason;
  }
  project.provide('e2eBrowsers', Object.fromEntries(shareable.map((engine, i) => [engine.name, served[i]!.endpoint])));
  return stop;
}
