import { describe, expect, it } from 'vitest';
import { analyzeRotation, analyzeSwap } from './rotation-analysis.js';

const mark = (t: number, state: string, generation: number) => ({ t, state, generation });
const frames = (from: number, to: number, step: number, content: (t: number) => boolean) =>
  Array.from({ length: Math.floor((to - from) / step) + 1 }, (_, i) => ({ t: from + i * step, content: content(from + i * step) }));

const marks = [mark(0, 'loading', 0), mark(10, 'loading', 1), mark(50, 'ready', 1), mark(1000, 'expired', 1), mark(1010, 'expired', 2), mark(1080, 'ready', 2)];

describe('analyzeRotation', () => {
  it('measures from the expired state to ready on a newer token', () => {
    const result = analyzeRotation(
      marks,
      frames(0, 1200, 16, () => true),
      frames(0, 1200, 16, () => true),
    );
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
    expect(
      analyzeRotation(
        marks,
        frames(0, 1400, 16, () => true),
        host,
      )?.blankFrames,
    ).toBe(0);
    const settled = analyzeRotation(
      marks,
      frames(0, 1400, 16, () => true),
      host,
      250,
    );
    expect(settled?.blankFrames).toBe(1);
    // [1000, 1330]: 21 frames (1008 … 1328) plus the first after, on each side.
    expect(settled?.sampledFrames).toBe(44);
  });

  it('ignores blank frames outside the rotation', () => {
    const result = analyzeRotation(
      marks,
      frames(0, 1200, 16, (t) => t > 60 && t < 1300),
      frames(0, 1200, 16, (t) => t < 2000 && t > 40),
    );
    expect(result?.blankFrames).toBe(0);
  });

  it('is undefined without an expiry, or when the dashboard never recovered on a new token', () => {
    expect(analyzeRotation(marks.slice(0, 3), [], [])).toBeUndefined();
    expect(analyzeRotation([mark(0, 'ready', 1), mark(5, 'expired', 1), mark(9, 'ready', 1)], [], [])).toBeUndefined();
  });
});

describe('analyzeSwap', () => {
  const OLD = 'http://127.0.0.1:9/iframe/d/tok-1/production';
  const NEW = 'http://127.0.0.1:9/iframe/d/tok-2/production';
  /** Host frames every 16 ms from 0 to `to`: the old frame on screen before `swapAt`, the new one from then on. */
  const host = (to: number, swapAt: number, shown = (t: number) => (t < swapAt ? [OLD] : [NEW])) =>
    Array.from({ length: Math.floor(to / 16) + 1 }, (_, i) => ({ t: i * 16, content: shown(i * 16).length > 0, shown: shown(i * 16) }));
  const change = (href: string, t: number, content: boolean) => ({ href, t, content });
  // The old frame has had content since 40 ms; the new one, loading hidden, since 900 ms.
  const changes = [change(OLD, 20, false), change(OLD, 40, true), change(NEW, 700, false), change(NEW, 900, true)];

  it('measures from the expiry message to the first host frame showing the new frame', () => {
    const result = analyzeSwap(host(1200, 1008), changes, [500, 800], OLD);
    expect(result?.rotationMs).toBe(508);
    expect(result?.blankFrames).toBe(0);
    // Frames 512 … 1008 (32) plus the first after.
    expect(result?.sampledFrames).toBe(33);
  });

  it('counts the frames of the settle time after the swap, and a flash in them', () => {
    const flash = [...changes, change(NEW, 1100, false), change(NEW, 1130, true)];
    const settled = analyzeSwap(host(1400, 1008), flash, [500], OLD, 200);
    // 1100 falls in host frame 1088's step and 1130 in frame 1120's: two blank frames.
    expect(settled?.blankFrames).toBe(2);
    // Frames 512 … 1200 (44) plus the first after.
    expect(settled?.sampledFrames).toBe(45);
    expect(analyzeSwap(host(1400, 1008), flash, [500], OLD)?.blankFrames).toBe(0);
  });

  it('counts a frame blank when nothing is on screen, or the frame on screen has no content yet', () => {
    const gap = host(1200, 1008, (t) => (t === 992 ? [] : t < 1008 ? [OLD] : [NEW]));
    expect(analyzeSwap(gap, changes, [500], OLD)?.blankFrames).toBe(1);
    // Swapped in before its document had content: it got it in the step of host frame 1024, so 1008 was blank.
    const early = [...changes.slice(0, 2), change(NEW, 700, false), change(NEW, 1030, true)];
    expect(analyzeSwap(host(1200, 1008), early, [500], OLD)?.blankFrames).toBe(1);
    // A document that never reported counts as blank: the swap frame, the first after, and the settle time's.
    expect(analyzeSwap(host(1200, 1008), changes.slice(0, 2), [500], OLD)?.blankFrames).toBe(2);
    expect(analyzeSwap(host(1400, 1008), changes.slice(0, 2), [500], OLD, 100)?.blankFrames).toBe(8);
  });

  it("takes an iframe's content from the iframe's frame in the same step, after the host's", () => {
    // The new document got its content in the very step the host first showed it (1008 → 1010).
    const late = [...changes.slice(0, 2), change(NEW, 1010, true)];
    expect(analyzeSwap(host(1200, 1008), late, [500], OLD)?.blankFrames).toBe(0);
  });

  it('counts the old frame going blank before the swap', () => {
    const dropped = [...changes, change(OLD, 600, false)];
    // Host frames 592 … 992 show the old, now empty frame: 26 frames.
    expect(analyzeSwap(host(1200, 1008), dropped, [500], OLD)?.blankFrames).toBe(26);
  });

  it('is undefined without an expiry message, or when the new frame never came on screen after it', () => {
    expect(analyzeSwap(host(1200, 1008), changes, [], OLD)).toBeUndefined();
    expect(analyzeSwap(host(1200, 5000), changes, [500], OLD)).toBeUndefined();
    expect(analyzeSwap(host(1200, 100), changes, [1300], OLD)).toBeUndefined();
  });
});
