// @vitest-environment node
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'vite';
import { afterAll, expect, it } from 'vitest';

/** The standalone bundle (Lit and the three frame protocols included) must stay within 10 KB gzipped. */
const BUDGET_BYTES = 10 * 1024;

const outDir = mkdtempSync(join(tmpdir(), 'embedded-dashboard-bundle-'));
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

it('builds a standalone bundle of at most 10 KB gzipped (level 9), Lit and the three frame protocols included', async () => {
  await build({
    configFile: fileURLToPath(new URL('../vite.standalone.config.ts', import.meta.url)),
    build: { outDir, sourcemap: false },
  });
  const bundle = readFileSync(join(outDir, 'embedded-dashboard.js'));
  const text = bundle.toString();
  // Lit and the protocol really are inside (no import left at all), and the element defines itself.
  expect(text).not.toMatch(/\bfrom\s*["']|\bimport\s*\(|\bimport\s*["']/);
  expect(text).toContain('embedded-dashboard');
  // Both frame protocols: ours (updateToken) and the vendor's (updateExploDashboardVariables).
  expect(text).toContain('updateToken');
  expect(text).toContain('updateExploDashboardVariables');
  expect(text).toContain('updateCustomerJwt');
  const gzipped = gzipSync(bundle, { level: 9 }).length;
  expect(gzipped).toBeLessThanOrEqual(BUDGET_BYTES);
}, 60_000);
