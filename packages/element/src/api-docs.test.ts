// @vitest-environment node
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const read = (path: string) => readFileSync(join(packageDir, path), 'utf8');
const source = read('src/embedded-dashboard.ts');
// The frames' events (load, resize, variable change) are dispatched by the frame controller (resize through frame-common.ts).
const frames = read('src/frame/frame-controller.ts') + read('src/frame/frame-common.ts');
const view = read('src/view/shadow-view.ts');
const styles = read('src/embedded-dashboard.styles.ts');
const readme = read('README.md');
interface Named {
  name: string;
}
interface Declaration {
  tagName?: string;
  attributes?: Named[];
  events?: Named[];
  cssParts?: Named[];
  slots?: Named[];
  cssProperties?: Named[];
  members?: Array<Named & { privacy?: string; static?: boolean }>;
}
const committed: { modules: Array<{ path: string; declarations?: Declaration[] }> } = JSON.parse(read('custom-elements.json'));
const all = (text: string, pattern: RegExp) => [...new Set([...text.matchAll(pattern)].map((m) => m[1]!))].sort();

// What the code really has, read from the code itself rather than from its JSDoc.
const code = {
  attributes: all(source, /attribute: '([a-z-]+)'/g)
    .concat(all(source, /^ {4}(\w+): \{\s*(?:reflect: true\s*)?\},?$/gm))
    // Read at render time only, passed through to the iframe.
    .concat(all(source, /getAttribute\('([a-z-]+)'\)/g)),
  events: all(source + frames, /emit\((?:this|host|this\.#host), '([a-z-]+)'/g),
  // The shadow DOM is written by the view.
  parts: all(view, /part: '([a-z-]+)'/g),
  slots: all(view, /create\('slot', \{ name: '([a-z-]+)'/g),
  cssProperties: all(styles, /var\((--embedded-dashboard-[a-z-]+)/g),
};

const element = committed.modules.flatMap((m) => m.declarations ?? []).find((d) => d.tagName === 'embedded-dashboard')!;
const names = (list: Named[] | undefined) => (list ?? []).map((x) => x.name).sort();

const CEM_CONFIG = 'custom-elements-manifest.config.mjs';
const workDir = mkdtempSync(join(tmpdir(), 'embedded-dashboard-cem-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

describe('custom-elements.json', () => {
  it('is what the analyzer generates from the sources today (run `npm run build:manifest`)', () => {
    // The analyzer writes under its working directory and rewrites package.json: give it a copy.
    cpSync(join(packageDir, 'src'), join(workDir, 'src'), { recursive: true });
    cpSync(join(packageDir, 'package.json'), join(workDir, 'package.json'));
    cpSync(join(packageDir, CEM_CONFIG), join(workDir, CEM_CONFIG));
    const cem = createRequire(import.meta.url).resolve('@custom-elements-manifest/analyzer/cem.js');
    const script = JSON.parse(read('package.json')).scripts['build:manifest'] as string;
    // The package's own script, with the quotes a shell would strip.
    const args = script
      .replace(/^cem /, '')
      .split(' ')
      .map((a) => a.replace(/^"|"$/g, ''));
    execFileSync(process.execPath, [cem, ...args], { cwd: workDir, stdio: 'pipe' });
    expect(JSON.parse(readFileSync(join(workDir, 'custom-elements.json'), 'utf8'))).toEqual(committed);
  }, 60_000);

  it('lists its modules in path order, whatever order the file system gives (same manifest on every machine)', () => {
    const paths = committed.modules.map((m) => m.path);
    expect(paths.length).toBeGreaterThanOrEqual(10);
    expect(paths).toEqual([...paths].sort());
  });

  it('lists every attribute, event, part, slot and custom property the code has', () => {
    expect(code.attributes.length).toBeGreaterThanOrEqual(10);
    expect(code.events).toHaveLength(6);
    expect(code.parts).toEqual(['base', 'frame', 'status']);
    expect(code.slots).toEqual(['error', 'frame', 'loading']);
    expect(names(element.attributes)).toEqual([...code.attributes].sort());
    expect(names(element.events)).toEqual(code.events);
    expect(names(element.cssParts)).toEqual(code.parts);
    expect(names(element.slots)).toEqual(code.slots);
    expect(names(element.cssProperties)).toEqual(code.cssProperties);
  });

  it('is the manifest package.json points to', () => {
    expect(JSON.parse(read('package.json')).customElements).toBe('custom-elements.json');
  });
});

describe('README', () => {
  it('documents every attribute, property, method, event, part, slot and custom property', () => {
    const members = (element.members ?? []).filter((m) => !m.privacy && !m.static).map((m) => m.name);
    for (const name of [...code.attributes, ...members, ...code.events, ...code.parts, ...code.slots, ...code.cssProperties]) {
      expect(readme, name).toContain(`\`${name}`);
    }
  });
});
