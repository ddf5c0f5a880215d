import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { createConsumerProject } from './consumer.js';
import { prepareInBackground } from './example-apps.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The installed consumer project (outside the workspace), shared by every packaging test. */
    consumerDir: string;
  }
}

/**
 * Packs every published package and installs the tarballs into one fresh project under the OS
 * temp directory, once per run. `KEEP_CONSUMER=1` keeps it for a look afterwards;
 * `REUSE_CONSUMER=<its app dir>` runs the tests against it again without packing or installing (its
 * Next.js example too, built once: .ci/run prepares one beside `vitest run` with
 * prepare-consumer.mjs).
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // A kept project (while working on a test: its tarballs are as old as that run), or the one
  // .ci/run prepared from this same build.
  const reuse = process.env.REUSE_CONSUMER;
  if (reuse) {
    project.provide('consumerDir', reuse);
    return async () => undefined;
  }
  const base = await mkdtemp(join(tmpdir(), 'embedded-dashboard-consumer-'));
  const consumerDir = await createConsumerProject(base);
  project.provide('consumerDir', consumerDir);
  // The run's longest build (next build, minutes on a busy machine), started now, beside the
  // first test files; the files that run the example wait for it (example-apps.ts).
  const nextBuild = prepareInBackground(consumerDir, 'nextjs');
  return async () => {
    await nextBuild.cancel();
    if (process.env.KEEP_CONSUMER === '1') console.log(`consumer project kept at ${consumerDir}`);
    else await rm(base, { recursive: true, force: true });
  };
}
