import type { FrameSample, StateMark } from './rotation-probe.js';

export interface RotationFigures {
  /** `tokenExpired` → the dashboard rendered data fetched with the new token. */
  rotationMs: number;
  /** Animation frames in that span (and the first one after it) without dashboard content. */
  blankFrames: number;
  /** Animation frames sampled in that span, host page and iframe together. */
  sampledFrames: number;
}

/**
 * Reads one rotation out of the probes' records: the first `expired` state (the page posts
 * `tokenExpired` in the same step) and the first `ready` state after it on a newer token
 * generation. `undefined` when the records hold no completed rotation.
 */
export function analyzeRotation(marks: readonly StateMark[], dashboard: readonly FrameSample[], host: readonly FrameSample[]): RotationFigures | undefined {
  const expired = marks.find((mark) => mark.state === 'expired');
  if (!expired) return undefined;
  const recovered = marks.find((mark) => mark.t >= expired.t && mark.state === 'ready' && mark.generation > expired.generation);
  if (!recovered) return undefined;
  const inSpan = (samples: readonly FrameSample[]) => {
    const during = samples.filter((sample) => sample.t >= expired.t && sample.t <= recovered.t);
    // The first frame painted after recovery must show the new data too.
    const after = samples.find((sample) => sample.t > recovered.t);
    return after ? [...during, after] : during;
  };
  const frames = [...inSpan(dashboard), ...inSpan(host)];
  return {
    rotationMs: recovered.t - expired.t,
    blankFrames: frames.filter((sample) => !sample.content).length,
    sampledFrames: frames.length,
  };
}
