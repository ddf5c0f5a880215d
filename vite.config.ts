import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { slowFirstSequencer } from './test/support/slow-first-sequencer.js';

const packageSource = (name: string, entry = 'index.ts') => fileURLToPath(new URL(`./packages/${name}/src/${entry}`, import.meta.url));

/**
 * Tests and the demo's dev server import workspace packages from their sources, so neither
 * needs a build first; the published `exports` maps point at `dist/`.
 */
const alias = [
  // Each package's `#…-platform` (package.json `imports`): tests run on Node, from the sources.
  { find: /^#(bff|client)-platform$/, replacement: packageSource('$1', 'platform/node.ts') },
  { find: /^@embedded-dashboard\/bff\/redis$/, replacement: packageSource('bff', 'store/redis/index.ts') },
  { find: /^@embedded-dashboard\/bff\/workers$/, replacement: packageSource('bff', 'workers/index.ts') },
  { find: /^@embedded-dashboard\/bff\/lambda$/, replacement: packageSource('bff', 'lambda/index.ts') },
  { find: /^@embedded-dashboard\/bff\/superset$/, replacement: packageSource('bff', 'superset/index.ts') },
  { find: /^@embedded-dashboard\/bff\/metabase$/, replacement: packageSource('bff', 'metabase/index.ts') },
  { find: /^@embedded-dashboard\/client\/superset$/, replacement: packageSource('client', 'superset/index.ts') },
  { find: /^@embedded-dashboard\/element\/explo$/, replacement: packageSource('element', 'explo.ts') },
  { find: /^@embedded-dashboard\/element\/timings$/, replacement: packageSource('element', 'timings.ts') },
  { find: /^@embedded-dashboard\/(protocol|client|emulator|bff|element|react|vite)$/, replacement: packageSource('$1') },
];

/**
 * How many e2e files run at once (each worker slot gets its own Firefox: test/e2e/global-setup.ts);
 * `E2E_WORKERS=1` runs them one at a time, as before (a heavily loaded machine, a comparison).
 */
const E2E_WORKERS = Math.max(1, Number(process.env.E2E_WORKERS) || 2);

/**
 * The files that start first in their group in a run without vitest's results cache (a fresh clone:
 * CI), the longest first as measured in fresh-clone CI runs; every other file follows in vitest's
 * order (by project, then size).
 * Only the order of starting (test/support/slow-first-sequencer.ts): a stale entry costs time, no test.
 */
const SLOW_FIRST = [
  // The e2e group's, in the order of the runs that measured them (one run with the two real-Superset
  // files side by side, superset-restart beside superset, took 31 s longer).
  'test/e2e/token-lifecycle.test.ts',
  'test/e2e/superset.test.ts',
  'test/e2e/accessibility.test.ts',
  'test/e2e/superset-restart.test.ts',
  'test/e2e/explo-protocol.test.ts',
  'test/e2e/strict-csp.test.ts',
  'test/e2e/single-chart.test.ts',
  'test/e2e/explo-jwt.test.ts',
  // The first group's (node, element and superset projects, sharing its workers), longest first:
  // the node project's fault scenarios, each mostly waiting on Redis and child processes (each
  // starts a cluster of its own), side by side as before; then the real Superset's files, which
  // vitest's base order ran after every node file (the run's tail, one worker idle).
  'test/redis/chaos/fleet-under-faults.test.ts',
  'test/redis/fleet-budget.test.ts',
  'packages/bff/src/superset/superset-vendor.superset.test.ts',
  'test/superset/sdk-control.test.ts',
  'test/superset/frame.test.ts',
  'test/runtimes/cli-runtimes.test.ts',
  'test/workers/workerd.test.ts',
  'test/superset/element-chromium.test.ts',
];

const demoFile = (path: string) => fileURLToPath(new URL(`./demo/${path}`, import.meta.url));

export default defineConfig({
  resolve: { alias },
  // The demo's pages. `npm run build` runs `vite build demo`, so the root (and the dev
  // server's, in demo/server/dev.ts) is demo/ while vitest keeps the repository root.
  build: {
    outDir: demoFile('dist/public'),
    emptyOutDir: true,
    rolldownOptions: {
      input: {
        index: demoFile('index.html'),
        app: demoFile('app.html'),
        integrate: demoFile('integrate.html'),
      },
    },
  },
  test: {
    // Two files at a time at least (the node and element projects; e2e keeps one): vitest's
    // default, one fewer than the cores, is one on a two-core CI machine, where these files mostly
    // wait on sockets, child processes and timers (a whole run used under half a core).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // Real sockets, child processes and a real browser: give slow shared machines room.
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // A green run must be quiet: the second reporter fails one that wrote to stderr. The third
    // writes each project's wall time for .ci/run's table (only with VITEST_PHASE_TIMES set).
    reporters: ['default', './test/support/quiet-reporter.ts', './test/support/phase-times-reporter.ts'],
    setupFiles: ['test/support/stderr-to-console.ts'],
    sequence: { sequencer: slowFirstSequencer(SLOW_FIRST) },
    projects: [
      {
        extends: true,
        test: {
          name: 'node',
          environment: 'node',
          // The files share their workers' module cache: each file importing hono, jose, ioredis
          // and the packages' sources again cost ~70 of the project's ~220 core-seconds on the
          // two-core CI machine (166 s wall; 125 s without). What a file changes in the process
          // (the global fetch, the OpenTelemetry provider) it puts back in its own afterAll.
          isolate: false,
          include: ['packages/{protocol,client,emulator,bff,vite}/src/**/*.test.ts', 'test/**/*.test.ts', 'demo/**/*.test.ts', 'bench/**/*.test.ts'],
          exclude: [
            'test/e2e/**',
            'test/superset/**',
            // A package's tests against the real Superset run in the superset project.
            '**/*.superset.test.ts',
            'test/packaging/**',
            'test/topology/**',
            '**/node_modules/**',
            '**/dist/**',
            // An opt-in repetition loop (minutes): part of a run only when asked for, so `npm test`
            // (CI) reports no skipped file.
            ...(process.env.CHAOS_SENTINEL_REPEAT ? [] : ['test/redis/chaos/sentinel-repeat.test.ts']),
          ],
        },
      },
      {
        extends: true,
        test: {
          name: 'element',
          environment: 'happy-dom',
          include: ['packages/element/src/**/*.test.ts', 'packages/react/src/**/*.test.ts'],
          setupFiles: ['packages/element/test/support/lit-dev-mode.ts'],
          environmentOptions: {
            happyDOM: {
              // The dashboard iframes point at hosts that do not exist here: navigate them without
              // loading anything (happy-dom otherwise logs a stack trace per iframe). The tests
              // speak for the dashboard by posting messages as its window.
              settings: { enableIframePageLoading: true, navigation: { disableChildFrameNavigation: true } },
            },
          },
        },
      },
      {
        extends: true,
        test: {
          // Tests against the real Apache Superset, which its global setup starts once per run (or
          // takes from .ci/run: EMBED_SUPERSET_MANIFEST); the conformance suite runs the same cases
          // against the emulator's Superset mode too.
          name: 'superset',
          environment: 'node',
          include: ['test/superset/**/*.test.ts', 'packages/{client,bff}/src/**/*.superset.test.ts'],
          globalSetup: ['test/superset/global-setup.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          environment: 'node',
          include: ['test/e2e/**/*.test.ts'],
          // The run's shared browsers (Chromium; a Firefox per worker slot), each file connecting to them.
          globalSetup: ['test/e2e/global-setup.ts', 'test/e2e/superset-global-setup.ts'],
          // After the other projects' files (a group of its own: two at once beside node files timed
          // out WebKit scenarios at load 20-30), two files at a time: they mostly wait (token
          // lifetimes, retries, animation frames), and one at a time took ~350 s of a quiet CI run.
          sequence: { groupOrder: 1 },
          maxWorkers: E2E_WORKERS,
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
