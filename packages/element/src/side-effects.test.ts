// @vitest-environment node
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

// Bundlers drop an import whose module is not listed in `sideEffects`, so `import
// '@embedded-dashboard/element'` would define nothing. The workspace (demo, tests) resolves the
// package to its sources through an alias and integrators to dist/, so each registering entry
// must be listed in both forms. (`explo` registers nothing since the element knows the protocol itself.)
const REGISTERING_ENTRIES = ['index'];

it('lists every entry that registers something as a side effect, as source and as built file', () => {
  const pkg = JSON.parse(readFileSync(join(fileURLToPath(new URL('..', import.meta.url)), 'package.json'), 'utf8')) as { sideEffects: string[] };
  for (const entry of REGISTERING_ENTRIES) {
    expect(pkg.sideEffects).toContain(`./src/${entry}.ts`);
    expect(pkg.sideEffects).toContain(`./dist/${entry}.js`);
  }
});
