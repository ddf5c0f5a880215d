import type { ContentChange, FrameSample, HostSample, StateMark } from './rotation-probe.js';

export interface RotationFigures {
  /** `tokenExpired` → the dashboard rendered data fetched with the new token. */
  rotationMs: number;
  /** Animation frames in that span and the settle time after it without dashboard content. */
  blankFrames: number;
  /** Animation frames sampled in that span and the settle time, host page and iframe together. */
  sampledFrames: number;
}

/**
 * Reads one rotation out of the probes' records: the first `expired` state (the page posts
 * `tokenExpired` in the same step) and the first `ready` state after it on a newer token
 * generation. Every animation frame from the expiry to `settleMs` after the recovery counts
 * (and the first one after that): a late flash (a re-render, an overlay) is blank frames too.
 * `undefined` when the records hold no completed rotation.
 */
export function analyzeRotation(
  marks: readonly StateMark[],
  dashboard: readonly FrameSample[],
  host: readonly FrameSample[],
  settleMs = 0,
): RotationFigures | undefined {
  const expired = marks.find((mark) => mark.state === 'expired');
  if (!expired) return undefined;
  const recovered = marks.find((mark) => mark.t >= expired.t && mark.state === 'ready' && mark.generation > expired.generation);
  if (!recovered) return undefined;
  const inSpan = (samples: readonly FrameSample[]) => {
    const end = recovered.t + settleMs;
    const during = samples.filter((sample) => sample.t >= expired.t && sample.t <= end);
    // The first frame painted after the window must show the new data too.
    const after = samples.find((sample) => sample.t > end);
    return after ? [...during, after] : during;
  };
  const frames = [...inSpan(dashboard), ...inSpan(host)];
  return {
    rotationMs: recovered.t - expired.t,
    blankFrames: frames.filter((sample) => !sample.content).length,
    sampledFrames: frames.length,
  };
}

/**
 * One rotation by a frame swap (the token in the iframe URL, `protocol="explo"`), from the host
 * page's animation frames and the dashboard documents' content changes:
 * - `rotationMs`: the first expiry message → the first host frame showing an iframe whose `src`
 *   is not `firstSrc` (the frame loaded with the new token);
 * - `blankFrames`: host frames from the expiry to `settleMs` after that (and the first one after)
 *   in which no iframe on screen has dashboard content. An iframe's content in a host frame is
 *   its document's latest change before the host's next frame: a browser runs the host's frame
 *   callbacks before those of the iframes it paints in the same frame, and a document that has
 *   reported nothing yet has no content.
 * `undefined` without an expiry message or without the new frame on screen after it.
 */
export function analyzeSwap(
  host: readonly HostSample[],
  changes: readonly ContentChange[],
  expired: readonly number[],
  firstSrc: string,
  settleMs = 0,
): RotationFigures | undefined {
  const expiredAt = expired[0];
  if (expiredAt === undefined) return undefined;
  const shownAt = host.find((sample) => sample.t >= expiredAt && sample.shown.some((src) => src !== firstSrc))?.t;
  if (shownAt === undefined) return undefined;
  const end = shownAt + settleMs;
  const first = host.findIndex((sample) => sample.t >= expiredAt);
  const after = host.findIndex((sample) => sample.t > end);
  const span = host.slice(first, after === -1 ? host.length : after + 1);
  /** The content of `href`'s document as its latest change before `before` says. */
  const contentBefore = (href: string, before: number) => {
    let at = -Infinity;
    let content = false;
    for (const change of changes) {
      if (change.href === href && change.t < before && change.t >= at) {
        at = change.t;
        content = change.content;
      }
    }
    return content;
  };
  const blank = span.filter((sample, index) => {
    const next = host[first + index + 1]?.t ?? Infinity;
    return !sample.shown.some((src) => contentBefore(src, next));
  });
  return { rotationMs: shownAt - expiredAt, blankFrames: blank.length, sampledFrames: span.length };
}
