import type { TestProject } from 'vitest/node';
import { supersetFromEnv, type SupersetManifest } from '../support/superset.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** .ci/run's Superset (`EMBED_SUPERSET_MANIFEST`), or null: test/e2e/superset*.test.ts then start their own (./superset-host.ts). */
    supersetE2e: SupersetManifest | null;
  }
}

/**
 * The e2e project's view of the run's real Superset: only the one .ci/run started beside the
 * build, so that an e2e run without the Superset files starts none; without it, each Superset
 * file starts its own (about 10 s) or skips loudly where none is installed.
 */
export default async function setup(project: TestProject): Promise<void> {
  project.provide('supersetE2e', (await supersetFromEnv()) ?? null);
}
