import type { PageEnvironment } from './page-inputs.js';

/**
 * The real browser as a `PageEnvironment`. Inlined into the page as source text, so it is
 * self-contained. Height is the `#app` wrapper's, not the document's: a document is never
 * shorter than its iframe, so its height could grow but never shrink.
 */
export function createBrowserEnvironment(win: Window & typeof globalThis): PageEnvironment {
  const app = () => win.document.getElementById('app') ?? win.document.body;
  const ancestors = win.location.ancestorOrigins;
  return {
    window: win,
    parent: win.parent !== win ? win.parent : null,
    originClues: {
      ancestorOrigin: ancestors && ancestors.length > 0 ? (ancestors[0] ?? undefined) : undefined,
      queryOrigin: new URLSearchParams(win.location.search).get('origin'),
      referrer: win.document.referrer,
    },
    search: win.location.search,
    hash: win.location.hash,
    forgetHash: () => win.history.replaceState(win.history.state, '', win.location.pathname + win.location.search),
    fetch: (url, init) => win.fetch(url, init),
    now: () => win.performance.now(),
    measureHeight: () => app().getBoundingClientRect().height,
    observeResize: (target, onResize) => {
      if (typeof win.ResizeObserver === 'function') new win.ResizeObserver(() => onResize()).observe(target);
    },
    every: (ms, tick) => {
      win.setInterval(tick, ms);
    },
    after: (ms, done) => {
      win.setTimeout(done, ms);
    },
  };
}
