/*
 * Functions Playwright runs inside the pages (serialized with `toString`, so each is
 * self-contained). Times are epoch ms (`performance.timeOrigin + performance.now()`), comparable
 * between the host page and the cross-origin dashboard iframe.
 */

export interface FrameSample {
  t: number;
  /** Whether this animation frame had dashboard content to show. */
  content: boolean;
}

/** One animation frame of the host page. */
export interface HostSample extends FrameSample {
  /** The `src` of each of the element's iframes on screen (`content` says whether there is one). */
  shown: string[];
}

/** A dashboard document's content appearing or going (`content`), from its first animation frame on. */
export interface ContentChange {
  /** The document's URL: the `src` of its iframe in the host page. */
  href: string;
  t: number;
  content: boolean;
}

/** What the host page records: its animation frames and when the frame's expiry event arrived. */
export interface HostProbe {
  samples: HostSample[];
  /** Arrival times of the expiry message (`tokenExpired` or `customerJwtExpired`) from one of the element's iframes. */
  expired: number[];
}

/** The name of the binding `installEmbedProbe` reports through (playwright's `exposeBinding`). */
export const EMBED_PROBE_BINDING = '__benchContentChange';

export interface StateMark {
  t: number;
  state: string;
  generation: number;
}

export interface DashboardProbe {
  marks: StateMark[];
  samples: FrameSample[];
  /** Random id of the probed document: a reloaded iframe no longer has it. */
  documentId: number;
}

/**
 * Inside the emulator's dashboard page: every state change of `<body data-state
 * data-token-generation>` (it says `expired` as it posts `tokenExpired`, `ready` once data
 * fetched with the current token is rendered), and whether each animation frame shows charts.
 */
export function installDashboardProbe(): number {
  const now = () => performance.timeOrigin + performance.now();
  const body = document.body;
  const root = document.getElementById('dashboard');
  const probe = { marks: [] as StateMark[], samples: [] as FrameSample[], documentId: Math.random() };
  const mark = () => probe.marks.push({ t: now(), state: body.dataset.state ?? '', generation: Number(body.dataset.tokenGeneration) });
  new MutationObserver(mark).observe(body, { attributes: true, attributeFilter: ['data-state', 'data-token-generation'] });
  mark();
  const sample = () => {
    const content = !!root && root.querySelector(':scope > :not(.placeholder)') !== null && root.getBoundingClientRect().height > 0;
    probe.samples.push({ t: now(), content });
    requestAnimationFrame(sample);
  };
  requestAnimationFrame(sample);
  (window as unknown as { __benchProbe: DashboardProbe }).__benchProbe = probe;
  return probe.documentId;
}

/**
 * In every document of the browser context, from its start (an init script): inside a dashboard
 * document (`/iframe/…`), whether each animation frame shows charts, reported through the binding
 * `EMBED_PROBE_BINDING` at the first frame and whenever it changes. Only changes travel, so the
 * probe costs the page next to nothing, and a document removed from the host page (the old frame
 * after a swap) has said everything about its frames before it went.
 */
export function installEmbedProbe(binding: string): void {
  if (!location.pathname.startsWith('/iframe/')) return;
  const report = (change: ContentChange) => (window as unknown as Record<string, ((change: ContentChange) => void) | undefined>)[binding]?.(change);
  let last: boolean | undefined;
  const sample = () => {
    const root = document.getElementById('dashboard');
    const content = !!root && root.querySelector(':scope > :not(.placeholder)') !== null && root.getBoundingClientRect().height > 0;
    if (content !== last) report({ href: location.href, t: performance.timeOrigin + performance.now(), content });
    last = content;
    requestAnimationFrame(sample);
  };
  requestAnimationFrame(sample);
}

/**
 * Inside the host page: whether each animation frame shows one of the element's iframes,
 * displayed and not covered (a loading or error overlay, a hidden or collapsed frame all count as
 * blank), and which (`shown`, by `src`). Any iframe of the element counts, so a protocol that
 * swaps in a second, hidden iframe is judged by what is on screen. Also records when the
 * frame's expiry message `expiredEvent` arrives from one of the element's iframes.
 */
export function installHostProbe(expiredEvent: string): void {
  const now = () => performance.timeOrigin + performance.now();
  const probe: HostProbe = { samples: [], expired: [] };
  const element = document.querySelector('embedded-dashboard');
  const iframes = () => Array.from(element?.shadowRoot?.querySelectorAll('iframe') ?? []);
  // Capturing on window: before the element's own listener, whatever it does with the message.
  addEventListener(
    'message',
    (event) => {
      const fromFrame = iframes().some((frame) => frame.contentWindow === event.source);
      if (fromFrame && (event.data as { event?: unknown } | null)?.event === expiredEvent) probe.expired.push(now());
    },
    true,
  );
  const shows = (frame: HTMLIFrameElement): boolean => {
    if (!element || frame.hidden) return false;
    const rect = frame.getBoundingClientRect();
    const style = getComputedStyle(frame);
    const state = element.getAttribute('state');
    const x = rect.left + rect.width / 2;
    const y = Math.min(rect.top + rect.height / 2, innerHeight - 1);
    return (
      rect.width > 0 &&
      rect.height > 0 &&
      style.visibility !== 'hidden' &&
      Number(style.opacity) > 0 &&
      (state === 'ready' || state === 'refreshing') &&
      element.shadowRoot?.elementFromPoint(x, y) === frame
    );
  };
  const sample = () => {
    const shown = iframes()
      .filter(shows)
      .map((frame) => frame.src);
    probe.samples.push({ t: now(), content: shown.length > 0, shown });
    requestAnimationFrame(sample);
  };
  requestAnimationFrame(sample);
  (window as unknown as { __benchHostProbe: HostProbe }).__benchHostProbe = probe;
}
