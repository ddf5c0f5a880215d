import { DashboardState } from '../state.js';

/** What the element's shadow DOM shows, computed by the element at each update. */
export interface ViewModel {
  state: DashboardState;
  /** The status text (also the error text). */
  message: string;
  /** The retry button's text. */
  retry: string;
  /** The visible frame reported loaded: nothing is reserved or hidden any more. */
  loaded: boolean;
  /** A frame shows its own loading (loaded, or adopted as rendered visible): no skeleton over it. */
  live: boolean;
  /** The visible frame is the adopted server-rendered one (shown through `<slot name="frame">`). */
  adopted: boolean;
  /** The two frame slots' URLs (`undefined`: no frame there, or none loaded yet in the visible one). */
  srcs: readonly (string | undefined)[];
  /** Which frame slot is visible. */
  cur: number;
  /** The auto height in CSS px, `false` for none. */
  height: number | false | undefined;
  /** The iframe's accessible name. */
  title: string;
  /** The host's `sandbox` and `loading` attributes, passed to its iframes. */
  sandbox: string | null;
  /** The host's `allow` (the iframes' Permissions Policy). */
  allow: string;
  loading: string | null;
}

/** Attribute values by name: text sets it, `true` sets it empty, `false` or `undefined` removes it. */
type Attributes = Record<string, string | boolean | undefined>;

/**
 * Sets each attribute whose value differs and removes the unwanted ones, in the order given: an
 * attribute is never set again to the value it has, since setting an iframe's `src` again
 * navigates it again.
 */
function patch(element: Element, attributes: Attributes): Element {
  for (const name in attributes) {
    const value = attributes[name];
    const text = value === true ? '' : value === false ? undefined : value;
    if (text === undefined) element.removeAttribute(name);
    else if (element.getAttribute(name) !== text) element.setAttribute(name, text);
  }
  return element;
}

const create = (tag: string, attributes: Attributes = {}): Element => patch(document.createElement(tag), attributes);

/** The iframes' `allow` when the element has none. */
export const DEFAULT_ALLOW = 'fullscreen';

const HEIGHT = '--embedded-dashboard-height';

/**
 * Writes the auto height through CSSOM, never a `style` attribute: a host page's
 * `style-src 'self'` blocks style attributes (`style-src-attr`), not CSSOM (ARCHITECTURE §5).
 */
function setHeight(element: Element | undefined, height: string): void {
  const style = (element as HTMLElement | undefined)?.style;
  if (style && style.getPropertyValue(HEIGHT) !== height) {
    if (height) style.setProperty(HEIGHT, height);
    else style.removeProperty(HEIGHT);
  }
}

/** A node's text, written only when it changed (a live region announces every write). */
function setText(node: Node | null, text: string): void {
  if (node && node.textContent !== text) node.textContent = text;
}

/** One spot of the wrapper holding at most one node: a comment marks where it goes. */
interface Place {
  mark: Comment;
  kind?: string | undefined;
  node?: Element | undefined;
}

/**
 * The element's shadow DOM, written by hand (no template library: lit-html alone is about 2.3 kB
 * gzipped, more than this whole view; ARCHITECTURE §3.1):
 *
 * ```html
 * <div part="base" tabindex="-1" class="reserve?">
 *   frame slot 0: <iframe part="frame" id="f0"> | <slot name="frame"> (the adopted frame) | nothing
 *   frame slot 1: <iframe part="frame" id="f1"> (a new frame loading hidden) | nothing
 *   overlay: <slot name="loading" class="overlay skeleton"> | <slot name="error" class="overlay"><p/><button/></slot> | nothing
 *   <div part="status" role="status">
 * </div>
 * ```
 *
 * A node stays in its place for as long as the place shows the same kind of node, and attributes
 * are written only when they change: moving or re-`src`-ing an iframe would reload it.
 */
export class ShadowView {
  readonly #base: Element;
  readonly #status: Element;
  readonly #places: Place[] = [];
  readonly #retry: () => void;

  constructor(root: Node, retry: () => void) {
    this.#retry = retry;
    const base = (this.#base = create('div', { part: 'base', tabindex: '-1' }));
    for (let i = 0; i < 3; i++) this.#places.push({ mark: base.appendChild(document.createComment('')) });
    this.#status = base.appendChild(create('div', { part: 'status', role: 'status' }));
    root.appendChild(base);
  }

  render(view: ViewModel): void {
    patch(this.#base, { class: view.loaded ? '' : 'reserve' });
    const height = view.height ? `${view.height}px` : '';
    // The space reserved before the frame shows (`.reserve`): the height known, else the minimum.
    setHeight(this.#base, height);
    for (const slot of [0, 1]) {
      const cls = slot !== view.cur ? 'pending next' : view.live ? '' : 'pending';
      const src = view.srcs[slot];
      if (!slot && view.adopted)
        setHeight(
          this.#show(slot, 'frame', () => create('slot', { name: 'frame' }), { class: cls }),
          height,
        );
      else
        setHeight(
          this.#show(
            slot,
            src || slot === view.cur ? 'iframe' : undefined,
            () => create('iframe', { part: 'frame', id: 'f' + slot, referrerpolicy: 'strict-origin' }),
            {
              // Before `src`: a new iframe's first load takes them.
              sandbox: view.sandbox ?? undefined,
              allow: view.allow,
              loading: view.loading ?? undefined,
              title: view.title,
              hidden: !src,
              class: cls,
              src,
            },
          ),
          height,
        );
    }
    const overlay =
      view.state === DashboardState.loading
        ? view.live
          ? undefined
          : 'loading'
        : view.state === DashboardState.error || view.state === DashboardState.unauthenticated
          ? 'error'
          : undefined;
    const shown = this.#show(2, overlay, () => {
      if (overlay === 'loading') return create('slot', { name: 'loading', class: 'overlay skeleton' });
      const slot = create('slot', { name: 'error', class: 'overlay' });
      slot.append(create('p'), create('button', { type: 'button' }));
      slot.lastChild!.addEventListener('click', this.#retry);
      return slot;
    });
    if (overlay === 'error') {
      setText(shown!.firstChild, view.message);
      setText(shown!.lastChild, view.retry);
    }
    setText(this.#status, view.message);
  }

  /**
   * Shows a node of `kind` at place `index`: the one there when it is of that kind, else a new one
   * from `create`, given `attributes` before it is inserted; `undefined` empties the place.
   */
  #show(index: number, kind: string | undefined, make: () => Element, attributes: Attributes = {}): Element | undefined {
    const place = this.#places[index]!;
    if (place.kind !== kind) {
      place.node?.remove();
      place.kind = kind;
      place.node = kind === undefined ? undefined : make();
      if (place.node) place.mark.before(patch(place.node, attributes));
    } else if (place.node) patch(place.node, attributes);
    return place.node;
  }
}
