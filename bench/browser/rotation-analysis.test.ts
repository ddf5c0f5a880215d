import { describe, expect, it } from 'vitest';
import { analyzeRotation } from './rotation-analysis.js';

const mark = (t: number, state: string, generation: number) => ({ t, state, generation });
const frames = (from: number, to: number, step: number, content: (t: number) => boolean) =>
  Array.from({ length: Math.floor((to - from) / step) + 1 }, (_, i) => ({ t: from + i * step, content: content(from + i * step) }));

const marks = [mark(0, 'loading', 0), mark(10, 'loading', 1), mark(50, 'ready', 1), mark(1000, 'expired', 1), mark(1010, 'expired', 2), mark(1080, 'ready', 2)];

describe('analyzeRotation', () => {
  it('measures from the expired state to ready on a newer token', () => {
    const result = analyzeRotation(marks, frames(0, 1200, 16, () => true), frames(0, 1200, 16, () => true));
    expect(result?.rotationMs).toBe(80);
    expect(result?.blankFrames).toBe(0);
    // 5 frames in [1000, 1080] (1008 … 1072) plus the first after, on each side.
    expect(result?.sampledFrames).toBe(12);
  });

  it('counts blank frames in the iframe and in the host page, and the first frame after recovery', () => {
    const dashboard = frames(0, 1200, 16, (t) => !(t >= 1024 && t < 1060));
    const host = frames(0, 1200, 16, (t) => t !== 1088);
    expect(analyzeRotation(marks, dashboard, host)?.blankFrames).toBe(3 + 1);
  });

  it('counts every frame of the settle time after recovery, so a late flash is caught', () => {
    const host = frames(0, 1400, 16, (t) => t !== 1296);
    expect(analyzeRotation(marks, frames(0, 1400, 16, () => true), host)?.blankFrames).toBe(0);
    const settled = analyzeRotation(marks, frames(0, 1400, 16, () => true), host, 250);
    expect(settled?.blankFrames).toBe(1);
    // [1000, 1330]: 21 frames (1008 … 1328) plus the first after, on each side.
    expect(settled?.sampledFrames).toBe(44);
  });

  it('ignores blank frames outside the rotation', () => {
    const result = analyzeRotation(marks, frames(0, 1200, 16, (t) => t > 60 && t < 1300), frames(0, 1200, 16, (t) => t < 2000 && t > 40));
    expect(result?.blankFrames).toBe(0);
  });

  it('is undefined without an expiry, or when the dashboard never recovered on a new token', () => {
    expect(analyzeRotation(marks.slice(0, 3), [], [])).toBeUndefined();
    expect(analyzeRotation([mark(0, 'ready', 1), mark(5, 'expired', 1), mark(9, 'ready', 1)], [], [])).toBeUndefined();
  });
});
