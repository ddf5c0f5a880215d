/**
 * What an opt-in module (`timings.ts`, `trace-context.ts`) does to give `<embedded-dashboard>` a
 * boolean property over an attribute without the element's bundles carrying it: whether the
 * element is defined before or after the module, and for elements already on the page.
 */

const TAG = 'embedded-dashboard';

type ElementClass = CustomElementConstructor & { readonly prototype: HTMLElement; addInitializer?(initializer: (element: HTMLElement) => void): void };

/**
 * Defines `property` on the element's prototype over `attribute` (the attribute is the state, so
 * React, SSR and markup set it alike), with `extra` properties beside it, and calls `each` for
 * every element, existing and future. A value set on an element before the property existed moves
 * to the attribute first. Calling it again for the same property does nothing.
 */
export function defineOptIn(property: string, attribute: string, extra: PropertyDescriptorMap = {}, each?: (element: HTMLElement) => void): void {
  const adopt = (element: HTMLElement): void => {
    if (Object.hasOwn(element, property)) {
      const value = (element as unknown as Record<string, unknown>)[property];
      delete (element as unknown as Record<string, unknown>)[property];
      element.toggleAttribute(attribute, !!value);
    }
    each?.(element);
  };
  const enable = (element: ElementClass): void => {
    if (Object.hasOwn(element.prototype, property)) return;
    Object.defineProperties(element.prototype, {
      [property]: {
        configurable: true,
        get(this: HTMLElement) {
          return this.hasAttribute(attribute);
        },
        set(this: HTMLElement, value: unknown) {
          this.toggleAttribute(attribute, !!value);
        },
      },
      ...extra,
    });
    element.addInitializer?.(adopt);
    // On the server (Lit's shim registry, no document) no element exists yet.
    if (typeof document !== 'undefined') for (const existing of document.querySelectorAll<HTMLElement>(TAG)) adopt(existing);
  };
  if (typeof customElements === 'undefined') return;
  const defined = customElements.get(TAG);
  if (defined) enable(defined);
  else void customElements.whenDefined(TAG).then((element) => enable(element as ElementClass));
}
