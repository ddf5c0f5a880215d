// @vitest-environment node
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { squeezeCssTemplates } from '../build/squeeze-css.mjs';

describe('squeezeCssTemplates (the CSS of dist/ and of the standalone bundle)', () => {
  it('squeezes a css template and an unsafeCSS literal, and nothing else', () => {
    const code =
      'const a = css`\n  :host {\n    display: block; /* x */\n  }\n`;\nconst b = unsafeCSS(`\n  p > a { color: red; }\n`);\nconst c = `  keep   me  `;';
    expect(squeezeCssTemplates(code)).toBe('const a = css`:host{display:block}`;\nconst b = unsafeCSS(`p>a{color:red}`);\nconst c = `  keep   me  `;');
    // tsc writes the tag with a space.
    expect(squeezeCssTemplates('x = css `\n a { b: c; }\n`')).toBe('x = css`a{b:c}`');
  });

  it('leaves comments that mention the tag, interpolations and escapes alone', () => {
    const comment = '// `unsafeCSS` over the `css` tag keeps checks (and\n// more) out.\nexport const s = 1; const t = `a`;';
    expect(squeezeCssTemplates(comment)).toBe(comment);
    const interpolated = 'css`a { color: ${red}; }`';
    expect(squeezeCssTemplates(interpolated)).toBe(interpolated);
  });

  it('keeps the element styles module valid: only the text of its one CSS literal changes', () => {
    const source = readFileSync(new URL('./embedded-dashboard.styles.ts', import.meta.url), 'utf8');
    const squeezed = squeezeCssTemplates(source);
    const outside = (text: string) => text.replace(/(?<![`\w.$])(css\s*|unsafeCSS\(\s*)`[^`]*`/, '$1``');
    expect(outside(squeezed)).toBe(outside(source));
    expect(squeezed.length).toBeLessThan(source.length);
    expect(squeezed).not.toMatch(/\/\*|\n {2}/);
  });
});
