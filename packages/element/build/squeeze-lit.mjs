/**
 * Cuts from Lit's production build, for the standalone bundle only, code that can never run
 * there. The bundle exports the element, not Lit (`html`, `render`, `CSSResult`, directives), so
 * the only templates this copy of Lit ever renders are the element's own, and these cuts remove
 * what those templates and the bundle's browsers cannot reach:
 * - the hooks for Lit's `polyfill-support.js` and ShadyCSS: the bundle's own syntax (private
 *   methods, static blocks: ES2022) does not parse in the browsers that need those polyfills;
 * - the `lit*Versions` lists: only Lit's dev-mode builds read them (their "multiple versions"
 *   warning, which a self-contained copy should not trigger);
 * - `CSSResult`'s constructor message and lit-html's compiled-template branch;
 * - template features the element's templates do not use (src/squeeze-lit.test.ts checks the
 *   sources for each): `svg`/`mathml` templates, `.property` and element-position bindings,
 *   iterables as child values, and directives (lit-html's `resolveDirective` becomes the identity:
 *   `nothing` and `noChange` are plain values, not directives);
 * - attribute reflection (`reflect: true`): no property of the element reflects (it sets its
 *   `state` attribute itself, after hydration), so ReactiveElement's reflecting code and its
 *   `toAttribute` converter are dead.
 * Each cut must match exactly once, so a Lit upgrade that moves the code fails the build
 * (and the test) instead of shipping silently larger or broken.
 */
export const LIT_CUTS = {
  'lit-html/lit-html.js': [
    [',B=t.litHtmlPolyfillSupport;B?.(S,k),(t.litHtmlVersions??=[]).push("3.3.3");', ';'],
    ['"number"==typeof s?this._$AC(t):(void 0===s.el&&(s.el=S.createElement(V(s.h,s.h[0]),this.options)),s)', 'this._$AC(t)'],
    ['l=2===i?"<svg>":3===i?"<math>":""', 'l=""'],
    ['+(2===i?"</svg>":3===i?"</math>":"")', ''],
    [',2===i||3===i){const t=this.el.content.firstChild;t.replaceWith(...t.childNodes)}', '){}'],
    ['ctor:"."===e[1]?I:"?"===e[1]?L:', 'ctor:"?"===e[1]?L:'],
    ['else t.startsWith(o)&&(d.push({type:6,index:l}),r.removeAttribute(t))', ''],
    [':6===r.type&&(i=new Z(h,this,t))', ':0'],
    ['d(t)?this.k(t):this._(t)', 'this._(t)'],
    ['function M(t,i,s=t,e){if(i===E)return i;let h=void 0!==e?s._$Co?.[e]:s._$Cl;const o=a(i)?void 0:i._$litDirective$;return h?.constructor!==o&&(h?._$AO?.(!1),void 0===o?h=void 0:(h=new o(t),h._$AT(t,s,e)),void 0!==e?(s._$Co??=[])[e]=h:s._$Cl=h),void 0!==h&&(i=M(t,h._$AS(t,i.values),h,e)),i}', 'function M(t,i){return i}'],
  ],
  '@lit/reactive-element/reactive-element.js': [
    ['p=a.reactiveElementPolyfillSupport,', ''],
    [',p?.({ReactiveElement:y}),(a.reactiveElementVersions??=[]).push("2.1.2");', ';'],
    ['_$ET(t,s){const i=this.constructor.elementProperties.get(t),e=this.constructor._$Eu(t,i);if(void 0!==e&&!0===i.reflect){const h=(void 0!==i.converter?.toAttribute?i.converter:u).toAttribute(s,i.type);this._$Em=t,null==h?this.removeAttribute(e):this.setAttribute(e,h),this._$Em=null}}', ''],
    ['this._$Eq&&=this._$Eq.forEach(t=>this._$ET(t,this[t])),', ''],
    [',!0===e&&this._$Em!==t&&(this._$Eq??=new Set).add(t)', ''],
    ['toAttribute(t,s){switch(s){case Boolean:t=t?l:null;break;case Object:case Array:t=null==t?t:JSON.stringify(t)}return t},', ''],
  ],
  '@lit/reactive-element/css-tag.js': [
    ['(void 0===t.ShadyCSS||t.ShadyCSS.nativeShadow)&&', ''],
    ['throw Error("CSSResult is not constructable. Use `unsafeCSS` or `css` instead.")', 'throw Error()'],
  ],
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
