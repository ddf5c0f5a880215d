import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { PackagingSequencer } from './sequencer.js';

/**
 * `npm run test:packages`: what integrators install, checked from `npm pack` tarballs in a project
 * outside the workspace (see global-setup.ts), and where they run it: test/topology puts the
 * demo, the BFF CLI and the examples behind one nginx terminating TLS at named hosts (its own
 * global-setup.ts). Needs `npm run build` first. Not part of `npm test` (it installs, builds apps
 * and starts servers: minutes); `.ci/run` runs it.
 */
export default defineConfig({
  root: fileURLToPath(new URL('../../', import.meta.url)),
  test: {
    name: 'packaging',
    include: ['test/packaging/**/*.test.ts', 'test/topology/**/*.test.ts'],
    globalSetup: ['test/packaging/global-setup.ts', 'test/topology/global-setup.ts'],
    environment: 'node',
    // One app build or browser at a time on a two-core machine.
    fileParallelism: false,
    sequence: { sequencer: PackagingSequencer },
    testTimeout: 180_000,
    hookTimeout: 300_000,
  },
});
