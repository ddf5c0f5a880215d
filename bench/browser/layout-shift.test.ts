import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { UNDEFINED_ELEMENT_CSS } from './page-server.js';

describe('row 11 page', () => {
  it("reserves the element's space before its script runs with the element README's rule, as written", () => {
    const readme = readFileSync(new URL('../../packages/element/README.md', import.meta.url), 'utf8');
    expect(readme).toContain(`\`\`\`css\n${UNDEFINED_ELEMENT_CSS}\n\`\`\``);
  });
});
