import type { FrameSample, StateMark } from './rotation-probe.js';

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
