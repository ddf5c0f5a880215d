import { afterEach, describe, expect, it, vi } from 'vitest';
import { DashboardState } from '../state.js';
import { ShadowView, type ViewModel } from './shadow-view.js';

const SRC = 'https://dash.example.com/iframe/sales';

const model = (changes: Partial<ViewModel> = {}): ViewModel => ({
  state: DashboardState.loading,
  message: 'Loading dashboard',
  retry: 'Retry',
  loaded: false,
  live: false,
  adopted: false,
  srcs: [SRC],
  cur: 0,
  height: undefined,
  title: 'sales',
  sandbox: null,
  allow: 'fullscreen',
  loading: null,
  ...changes,
});

const mountView = () => {
  const host = document.createElement('div');
  document.body.append(host);
  const root = host.attachShadow({ mode: 'open' });
  const retry = vi.fn();
  return { root, retry, view: new ShadowView(root, retry), frames: () => [...root.querySelectorAll('iframe')] };
};

/**
 * The attribute names the view writes with `setAttribute` from now on, on `only` or on every
 * element: not those happy-dom writes itself to mirror a CSSOM change (a browser's CSSOM does not
 * go through the `style` attribute's CSP check).
 */
function attributeWrites(only?: Element): string[] {
  const names: string[] = [];
  let cssom = false;
  for (const method of ['setProperty', 'removeProperty'] as const) {
    const original = CSSStyleDeclaration.prototype[method] as (...args: unknown[]) => unknown;
    vi.spyOn(CSSStyleDeclaration.prototype, method).mockImplementation(function (this: CSSStyleDeclaration, ...args: unknown[]) {
      cssom = true;
      try {
        return original.apply(this, args);
      } finally {
        cssom = false;
      }
    });
  }
  const real = Element.prototype.setAttribute;
  vi.spyOn(Element.prototype, 'setAttribute').mockImplementation(function (this: Element, name: string, value: string) {
    if (!cssom && (!only || this === only)) names.push(name);
    real.call(this, name, value);
  });
  return names;
}

afterEach(() => {
  document.body.replaceChildren();
  vi.restoreAllMocks();
});

describe('ShadowView (the element shadow DOM, written by hand)', () => {
  it("writes an iframe's src once: later renders with the same URL leave it alone (setting it again reloads the dashboard)", () => {
    const { view, frames } = mountView();
    view.render(model());
    const [frame] = frames();
    const set = attributeWrites(frame);
    view.render(model({ state: DashboardState.ready, loaded: true, live: true, height: 640 }));
    view.render(model({ state: DashboardState.refreshing, loaded: true, live: true, height: 700 }));
    expect(frames()).toEqual([frame]);
    expect(set).toEqual(['class']);
    expect(frame!.getAttribute('src')).toBe(SRC);
    expect((frame as HTMLElement).style.getPropertyValue('--embedded-dashboard-height')).toBe('700px');
  });

  it("sizes every frame it shows (its own iframes and the adopted frame's slot) through CSSOM, never a style attribute that style-src 'self' blocks", () => {
    const attributes = attributeWrites();
    const { root, view, frames } = mountView();
    const height = (element: Element | null | undefined) => (element as HTMLElement).style.getPropertyValue('--embedded-dashboard-height');
    view.render(model({ adopted: true, live: true, height: 512 }));
    const slot = root.querySelector('slot[name=frame]');
    expect(height(slot)).toBe('512px');
    view.render(model({ adopted: true, live: true, height: 530, srcs: [SRC, `${SRC}?t=2`] }));
    expect(height(slot)).toBe('530px');
    expect(height(frames()[0])).toBe('530px');
    // Swapped to its own frame, then told to keep the CSS height (no-auto-resize): the property goes.
    view.render(model({ state: DashboardState.ready, loaded: true, live: true, height: 530, srcs: [undefined, `${SRC}?t=2`], cur: 1 }));
    expect(height(frames()[0])).toBe('530px');
    view.render(model({ state: DashboardState.ready, loaded: true, live: true, height: false, srcs: [undefined, `${SRC}?t=2`], cur: 1 }));
    expect(height(frames()[0])).toBe('');
    expect(attributes).not.toContain('style');
  });

  it('gives a new iframe its sandbox and loading before its src, and all three before it is in the document', () => {
    const { view } = mountView();
    const connectedAt: Record<string, boolean> = {};
    const order: string[] = [];
    const real = Element.prototype.setAttribute;
    vi.spyOn(Element.prototype, 'setAttribute').mockImplementation(function (this: Element, name: string, value: string) {
      if (this.localName === 'iframe') {
        order.push(name);
        connectedAt[name] = this.isConnected;
      }
      real.call(this, name, value);
    });
    view.render(model({ sandbox: 'allow-scripts allow-same-origin', loading: 'lazy' }));
    expect(order.indexOf('sandbox')).toBeLessThan(order.indexOf('src'));
    expect(order.indexOf('loading')).toBeLessThan(order.indexOf('src'));
    expect(connectedAt).toMatchObject({ sandbox: false, loading: false, src: false });
  });

  it('keeps the visible frame where it is while a second one loads beside it and after the swap (moving an iframe reloads it)', () => {
    const { root, view, frames } = mountView();
    view.render(model({ state: DashboardState.ready, loaded: true, live: true }));
    const [first] = frames();
    view.render(model({ state: DashboardState.ready, loaded: true, live: true, srcs: [SRC, `${SRC}?t=2`] }));
    const [still, next] = frames();
    expect(still).toBe(first);
    expect(next!.className).toBe('pending next');
    expect(next!.id).toBe('f1');
    // Swapped: slot 1 is visible, slot 0 is gone; the new frame is the same node as before.
    view.render(model({ state: DashboardState.ready, loaded: false, live: false, srcs: [undefined, `${SRC}?t=2`], cur: 1 }));
    expect(frames()).toEqual([next]);
    expect(next!.className).toBe('pending');
    expect(root.querySelector('[part=base]')!.className).toBe('reserve');
  });

  it('shows an adopted frame through the frame slot, and an iframe of its own once it is dropped', () => {
    const { root, view, frames } = mountView();
    view.render(model({ adopted: true, live: true }));
    expect(frames()).toEqual([]);
    const slot = root.querySelector('slot[name=frame]')!;
    expect(slot.getAttribute('class')).toBe('');
    // Shown, not loading: no skeleton over it.
    expect(root.querySelector('slot[name=loading]')).toBeNull();
    view.render(model());
    expect(slot.isConnected).toBe(false);
    expect(frames()).toHaveLength(1);
    expect(root.querySelector('slot[name=loading]')!.className).toBe('overlay skeleton');
  });

  it('shows the error UI with its texts, calls retry on the button, and writes the live region only when its text changes', () => {
    const { root, view, retry } = mountView();
    view.render(model());
    const status = root.querySelector('[part=status]')!;
    const announced = status.firstChild;
    view.render(model());
    expect(status.firstChild).toBe(announced);
    view.render(model({ state: DashboardState.error, message: 'Dashboard unavailable', srcs: [] }));
    expect(status.textContent).toBe('Dashboard unavailable');
    expect(root.querySelector('slot[name=error] p')!.textContent).toBe('Dashboard unavailable');
    const button = root.querySelector<HTMLButtonElement>('slot[name=error] button')!;
    expect(button.textContent).toBe('Retry');
    expect(button.getAttribute('type')).toBe('button');
    button.click();
    expect(retry).toHaveBeenCalledTimes(1);
    view.render(model({ state: DashboardState.unauthenticated, message: 'Sign in again', retry: 'Erneut versuchen', srcs: [] }));
    expect(root.querySelector('slot[name=error] button')).toBe(button);
    expect(button.textContent).toBe('Erneut versuchen');
    view.render(model({ state: DashboardState.ready, loaded: true, live: true }));
    expect(root.querySelector('slot[name=error]')).toBeNull();
    expect(root.querySelector('slot[name=loading]')).toBeNull();
  });
});
