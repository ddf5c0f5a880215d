/**
 * Lit leaves `css` template text as written: this squeezes its whitespace and comments, in the
 * standalone bundle (a Vite transform) and in `dist/` after tsc (what an integrator's bundler
 * takes), so both ship the same compact CSS. Only text inside css`…` or unsafeCSS(`…`) changes
 * (tsc writes the first as css `…`).
 *
 * @param {string} code
 * @returns {string}
 */
export function squeezeCssTemplates(code) {
  // The css tag or an unsafeCSS call, in code: a name after a backtick or a word character (as
  // in a comment that says `css` tag) is not one.
  return code.replace(/(?<![`\w.$])(css\s*|unsafeCSS\(\s*)`([^`$\\]*)`/g, (_, opener, text) => {
    const squeezed = text
      .replace(/\/\*[^]*?\*\//g, '')
      .replace(/\s+/g, ' ')
      .replace(/ ?([{}:;,>]) ?/g, '$1')
      .replace(/;}/g, '}');
    return `${opener.replace(/\s+/g, '')}\`${squeezed.trim()}\``;
  });
}

// `node build/squeeze-css.mjs file…`: squeeze the css templates of built files in place.
if (import.meta.url === `file://${process.argv[1]}`) {
  const { readFileSync, writeFileSync } = await import('node:fs');
  for (const file of process.argv.slice(2)) writeFileSync(file, squeezeCssTemplates(readFileSync(file, 'utf8')));
}
