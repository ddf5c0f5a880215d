import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { RENDER_BLOCKING, UNDEFINED_ELEMENT_CSS } from './page-server.js';

const readme = readFileSync(new URL('../../packages/element/README.md', import.meta.url), 'utf8');

describe("row 11's page is what the element README says to do", () => {
  it("reserves the element's space before its script runs with the README's rule, as written", () => {
    expect(readme).toContain(`\`\`\`css\n${UNDEFINED_ELEMENT_CSS}\n\`\`\``);
  });

  it("lets the element's script hold the first paint, as the README's script tag does", () => {
    expect(readme).toMatch(new RegExp(`\`\`\`html\\n<script type="module" src="[^"]+"${RENDER_BLOCKING}></script>\\n\`\`\``));
  });
});
