#!/usr/bin/env node
// `node test/packaging/prepare-consumer.mjs DIR`: the packaging tests' consumer project, prepared
// ahead of `npm run test:packages` (which then takes it with REUSE_CONSUMER=DIR/app): every
// published package packed and installed into DIR/app, and its Next.js example built. .ci/run runs
// it beside `vitest run` at nice 19, from the build `npm ci` made, so that test:packages starts
// with its tests instead of a minute of packing, installing and building. The same code as the
// tests' global setup (consumer.ts, example-apps.ts), bundled here by esbuild, which is already a
// dev dependency: Node 20 runs no TypeScript.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const [base] = process.argv.slice(2);
if (!base) {
  console.error('usage: node test/packaging/prepare-consumer.mjs DIR (a new or empty directory)');
  process.exit(2);
}
const here = fileURLToPath(new URL('.', import.meta.url));
const out = mkdtempSync(join(tmpdir(), 'embedded-dashboard-prepare-consumer-'));
try {
  await build({
    stdin: {
      contents: "export { createConsumerProject } from './consumer.ts'; export { preparedExample } from './example-apps.ts';",
      resolveDir: here,
      loader: 'ts',
    },
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    // consumer.ts finds the repository from its own URL: the bundle, elsewhere, keeps it.
    define: { 'import.meta.url': JSON.stringify(pathToFileURL(join(here, 'consumer.ts')).href) },
    outfile: join(out, 'prepare.mjs'),
    logLevel: 'error',
  });
  const { createConsumerProject, preparedExample } = await import(pathToFileURL(join(out, 'prepare.mjs')).href);
  const consumerDir = await createConsumerProject(base);
  await preparedExample(consumerDir, 'nextjs');
  console.log(`consumer project prepared at ${consumerDir}`);
} finally {
  rmSync(out, { recursive: true, force: true });
}
