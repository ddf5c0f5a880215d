// @vitest-environment node
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { LIT_CUTS, squeezeLit } from '../build/squeeze-lit.mjs';

// Lit's production files, where the workspace installs them (the standalone bundle's resolution).
const litFile = (name: string) => fileURLToPath(new URL(`../../../node_modules/${name}`, import.meta.url));

describe('squeezeLit (Lit code the standalone bundle cannot run)', () => {
  it.each(Object.keys(LIT_CUTS))('cuts %s exactly where it says, and only there', (name) => {
    const id = litFile(name);
    expect(id.endsWith(`/node_modules/${name}`)).toBe(true);
    const code = readFileSync(id, 'utf8');
    const cut = squeezeLit(id, code)!;
    let expected = code;
    for (const [from, to] of LIT_CUTS[name]!) {
      expect(code.split(from)).toHaveLength(2);
      expected = expected.replace(from, to);
    }
    expect(cut).toBe(expected);
    expect(cut.length).toBeLessThan(code.length);
    // Nothing of the cut hooks is left.
    expect(cut).not.toMatch(/PolyfillSupport|Versions|not constructable|ShadyCSS/);
  });

  it('fails the build when Lit changed under a cut, and leaves every other module alone', () => {
    const id = litFile('@lit/reactive-element/css-tag.js');
    expect(() => squeezeLit(id, 'export const nothing = 1;')).toThrow(/css-tag\.js changed \(Lit upgraded\?\)/);
    const twice = readFileSync(id, 'utf8').repeat(2);
    expect(() => squeezeLit(id, twice)).toThrow(/changed/);
    expect(squeezeLit('/x/src/embedded-dashboard.ts', 'p=a.reactiveElementPolyfillSupport,')).toBeUndefined();
    expect(squeezeLit(litFile('lit-html/lit-html.js'), 'const t=globalThis;')).toBeUndefined();
  });
});

describe("the element uses only what the standalone bundle's Lit keeps", () => {
  const sourceDir = fileURLToPath(new URL('.', import.meta.url));
  const sources = (readdirSync(sourceDir, { recursive: true }) as string[])
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'))
    .map((file) => [file, readFileSync(`${sourceDir}/${file}`, 'utf8')] as const);

  it('imports Lit only as @lit/reactive-element: no lit-html templates (2.3 kB gz a bundler user would pay, ARCHITECTURE §3.1)', () => {
    const litImports = sources.flatMap(([file, code]) => [...code.matchAll(/from\s*'((?:@lit\/|lit)[^']*)'/g)].map((m) => `${file}: ${m[1]}`));
    expect(litImports.length).toBeGreaterThanOrEqual(3);
    expect(litImports.filter((line) => !line.endsWith(': @lit/reactive-element'))).toEqual([]);
  });

  it('declares no reflected property (the bundle has no attribute reflection)', async () => {
    const { EmbeddedDashboard } = await import('./embedded-dashboard.js');
    const declared = Object.values(EmbeddedDashboard.properties) as { reflect?: boolean }[];
    expect(declared.length).toBeGreaterThan(10);
    expect(declared.filter((options) => options.reflect)).toEqual([]);
    for (const [file, code] of sources) expect(`${file}: ${code}`).not.toMatch(/reflect:\s*true/);
  });
});
