import type { TestProject } from 'vitest/node';
import { startSuperset, supersetFromEnv, supersetTool, type SupersetManifest } from '../support/superset.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run's real Superset (test/support/superset.ts), or null when it is not installed (a local run: the tests skip loudly). */
    superset: SupersetManifest | null;
  }
}

/**
 * Once per run of the superset project: the real Superset every file talks to. One that .ci/run
 * started in the background (`EMBED_SUPERSET_MANIFEST`) is used as it is; otherwise one is started
 * here (about 10 s from the migrated template) and stopped at the end of the run.
 */
export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  const running = await supersetFromEnv();
  if (running) {
    project.provide('superset', running);
    return undefined;
  }
  const tool = supersetTool();
  if (!tool.available) {
    project.provide('superset', null);
    return undefined;
  }
  const server = await startSuperset(tool.python);
  project.provide('superset', server.manifest);
  return () => server.dispose();
}
