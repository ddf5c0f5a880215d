/**
 * Lit leaves `css` template text as written: this squeezes its whitespace and comments, in the
 * standalone bundle (a Vite transform) and in `dist/` after tsc (what an integrator's bundler
 * takes), so both ship the same compact CSS. Only text inside css`…` changes (tsc writes it as css `…`).
 *
 * @param {string} code
 * @returns {string}
 */
export function squeezeCssTemplates(code) {
  return code.replace(/\bcss\s*`([^`]*)`/g, (_, text) => {
    const squeezed = text
      .replace(/\/\*[^]*?\*\//g, '')
      .replace(/\s+/g, ' ')
      .replace(/ ?([{}:;,>]) ?/g, '$1')
      .replace(/;}/g, '}');
    return `css\`${squeezed.trim()}\``;
  });
}

// `node build/squeeze-css.mjs file…`: squeeze the css templates of built files in place.
if (import.meta.url === `file://${process.argv[1]}`) {
  const { readFileSync, writeFileSync } = await import('node:fs');
  for (const file of process.argv.slice(2)) writeFileSync(file, squeezeCssTemplates(readFileSync(file, 'utf8')));
}
