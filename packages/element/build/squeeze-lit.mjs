/**
 * Cuts from Lit's production build, for the standalone bundle only, code that can never run
 * there:
 * - the hooks for Lit's `polyfill-support.js` and ShadyCSS: the bundle's own syntax (private
 *   methods, static blocks: ES2022) does not parse in the browsers that need the web components
 *   polyfills;
 * - the `lit*Versions` lists: only Lit's dev-mode builds read them (their "multiple versions"
 *   warning, which a self-contained copy should not trigger);
 * - `CSSResult`'s constructor message and the compiled-template branch of lit-html: the bundle
 *   exports neither `CSSResult` nor `render`, and its only templates are its own `html` ones.
 * Each cut must match exactly once, so a Lit upgrade that moves the code fails the build
 * (and src/squeeze-lit.test.ts) instead of shipping silently larger or broken.
 */
export const LIT_CUTS = {
  'lit-html/lit-html.js': [
    [',B=t.litHtmlPolyfillSupport;B?.(S,k),(t.litHtmlVersions??=[]).push("3.3.3");', ';'],
    ['"number"==typeof s?this._$AC(t):(void 0===s.el&&(s.el=S.createElement(V(s.h,s.h[0]),this.options)),s)', 'this._$AC(t)'],
  ],
  '@lit/reactive-element/reactive-element.js': [
    ['p=a.reactiveElementPolyfillSupport,', ''],
    [',p?.({ReactiveElement:y}),(a.reactiveElementVersions??=[]).push("2.1.2");', ';'],
  ],
  '@lit/reactive-element/css-tag.js': [
    ['(void 0===t.ShadyCSS||t.ShadyCSS.nativeShadow)&&', ''],['throw Error("CSSResult is not constructable. Use `unsafeCSS` or `css` instead.")', 'throw Error()']],
  'lit-element/lit-element.js': [
    ['const o=s.litElementPolyfillSupport;o?.({LitElement:i});', ''],
    ['(s.litElementVersions??=[]).push("4.2.2");', ''],
  ],
};

/**
 * @param {string} id module id (a resolved file path)
 * @param {string} code its source
 * @returns {string | undefined} the cut source, or `undefined` for a module that is not cut
 */
export function squeezeLit(id, code) {
  const file = Object.keys(LIT_CUTS).find((name) => id.endsWith(`/node_modules/${name}`));
  if (!file) return undefined;
  for (const [from, to] of LIT_CUTS[file]) {
    const at = code.indexOf(from);
    if (at < 0 || code.indexOf(from, at + 1) >= 0) throw new Error(`squeeze-lit: ${file} changed (Lit upgraded?): update build/squeeze-lit.mjs`);
    code = code.slice(0, at) + to + code.slice(at + from.length);
  }
  return code;
}
