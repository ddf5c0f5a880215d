/**
 * Cuts from Lit's production build, for the standalone bundle only, code that can never run
 * there. The element is a `ReactiveElement` (no lit-html: it writes its shadow DOM itself,
 * src/view/shadow-view.ts), and the bundle exports the element, not Lit, so these cuts remove what
 * the element and the bundle's browsers cannot reach:
 * - the hooks for Lit's `polyfill-support.js` and ShadyCSS: the bundle's own syntax (private
 *   methods, static blocks: ES2022) does not parse in the browsers that need those polyfills;
 * - the `reactiveElementVersions` list: only Lit's dev-mode builds read it (their "multiple
 *   versions" warning, which a self-contained copy should not trigger);
 * - `CSSResult`'s constructor message;
 * - attribute reflection (`reflect: true`): no property of the element reflects (it sets its
 *   `state` attribute itself, after hydration), so ReactiveElement's reflecting code and its
 *   `toAttribute` converter are dead (src/squeeze-lit.test.ts checks the element declares none).
 * Each cut must match exactly once, so a Lit upgrade that moves the code fails the build
 * (and the test) instead of shipping silently larger or broken.
 */
export const LIT_CUTS = {
  '@lit/reactive-element/reactive-element.js': [
    ['p=a.reactiveElementPolyfillSupport,', ''],
    [',p?.({ReactiveElement:y}),(a.reactiveElementVersions??=[]).push("2.1.2");', ';'],
    [
      '_$ET(t,s){const i=this.constructor.elementProperties.get(t),e=this.constructor._$Eu(t,i);if(void 0!==e&&!0===i.reflect){const h=(void 0!==i.converter?.toAttribute?i.converter:u).toAttribute(s,i.type);this._$Em=t,null==h?this.removeAttribute(e):this.setAttribute(e,h),this._$Em=null}}',
      '',
    ],
    ['this._$Eq&&=this._$Eq.forEach(t=>this._$ET(t,this[t])),', ''],
    [',!0===e&&this._$Em!==t&&(this._$Eq??=new Set).add(t)', ''],
    ['toAttribute(t,s){switch(s){case Boolean:t=t?l:null;break;case Object:case Array:t=null==t?t:JSON.stringify(t)}return t},', ''],
  ],
  '@lit/reactive-element/css-tag.js': [
    ['(void 0===t.ShadyCSS||t.ShadyCSS.nativeShadow)&&', ''],
    ['throw Error("CSSResult is not constructable. Use `unsafeCSS` or `css` instead.")', 'throw Error()'],
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
