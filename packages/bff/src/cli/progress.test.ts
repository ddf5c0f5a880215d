import { describe, expect, it } from 'vitest';
import { createProgress } from './progress.js';

/** A clock moved by hand and an output that records what a terminal, or a log, would get. */
function recorder() {
  let t = 1_000_000;
  const writes: string[] = [];
  const lines: string[] = [];
  return {
    clock: { now: () => t, advance: (ms: number) => (t += ms) },
    writes,
    lines,
    tty: { write: (text: string) => writes.push(text) },
    line: (text: string) => lines.push(text),
  };
}

describe('provision progress on a terminal', () => {
  it('redraws one bar in place with count, rate and ETA, and ends it with a newline', () => {
    const r = recorder();
    const bar = createProgress(10, { tty: r.tty, line: r.line }, r.clock.now);
    for (let i = 0; i < 4; i++) {
      r.clock.advance(500);
      bar.tick();
    }
    expect(r.writes).toHaveLength(4);
    for (const write of r.writes) {
      // In place: back to the line's start, nothing after the erase, never a newline mid-run.
      expect(write.startsWith('\r[')).toBe(true);
      expect(write.endsWith('\u001b[K')).toBe(true);
      expect(write).not.toContain('\n');
    }
    // 4 of 10 after 2 s: 12 of 30 cells, 2.0 a second, 3 s left.
    expect(r.writes[3]).toBe(`\r[${'#'.repeat(12)}${' '.repeat(18)}] 4/10 2.0/s ETA 3 s\u001b[K`);
    for (let i = 0; i < 6; i++) bar.tick();
    expect(r.writes.at(-1)).toBe(`\r[${'#'.repeat(30)}] 10/10 5.0/s ETA 0 s\u001b[K`);
    bar.done();
    expect(r.writes.at(-1)).toBe('\n');
    expect(r.lines).toEqual([]);
  });

  it('says the ETA is unknown before any time has passed, and draws nothing (not even the newline) for an empty file', () => {
    const r = recorder();
    const bar = createProgress(3, { tty: r.tty, line: r.line }, r.clock.now);
    bar.tick();
    expect(r.writes[0]).toContain('1/3 0.0/s ETA ?');
    const empty = recorder();
    createProgress(0, { tty: empty.tty, line: empty.line }, empty.clock.now).done();
    expect(empty.writes).toEqual([]);
  });
});

describe('provision progress elsewhere (a pipe, a log)', () => {
  it('prints plain lines, no bar and no carriage return, at most one a second and the last one', () => {
    const r = recorder();
    const bar = createProgress(6, { line: r.line }, r.clock.now);
    for (const ms of [100, 100, 900, 100, 100, 1_200]) {
      r.clock.advance(ms);
      bar.tick();
    }
    bar.done();
    expect(r.lines).toEqual(['provision: 1/6 10.0/s ETA 1 s', 'provision: 3/6 2.7/s ETA 2 s', 'provision: 6/6 2.4/s ETA 0 s']);
    expect(r.lines.join('')).not.toMatch(/[\r[]/);
    expect(r.writes).toEqual([]);
  });
});
