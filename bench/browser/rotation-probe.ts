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
 * Inside the host page: whether each animation frame shows one of the element's iframes,
 * displayed and not covered (a loading or error overlay, a hidden or collapsed frame all count as
 * blank). Any iframe of the element counts, so a protocol that swaps in a second, hidden iframe
 * is judged by what is on screen.
 */
export function installHostProbe(): void {
  const now = () => performance.timeOrigin + performance.now();
  const samples: FrameSample[] = [];
  const element = document.querySelector('embedded-dashboard');
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
    const frames = Array.from(element?.shadowRoot?.querySelectorAll('iframe') ?? []);
    samples.push({ t: now(), content: frames.some(shows) });
    requestAnimationFrame(sample);
  };
  requestAnimationFrame(sample);
  (window as unknown as { __benchHostSamples: FrameSample[] }).__benchHostSamples = samples;
}
