import { describe, expect, it } from 'vitest';
import { parseLoadedMessage } from './time-to-dashboard.js';

describe('parseLoadedMessage', () => {
  it('reads the time and the marks the host page logs', () => {
    expect(parseLoadedMessage('bench:loaded 412.5 {"defined":120.1,"frameStart":130}')).toEqual({ ms: 412.5, marks: { defined: 120.1, frameStart: 130 } });
  });

  it('keeps the time when the marks are missing or broken', () => {
    expect(parseLoadedMessage('bench:loaded 99')).toEqual({ ms: 99, marks: {} });
    expect(parseLoadedMessage('bench:loaded 99 {oops')).toEqual({ ms: 99, marks: {} });
  });

  it('refuses a line without a positive time, or another message', () => {
    expect(parseLoadedMessage('bench:loaded NaN {}')).toBeUndefined();
    expect(parseLoadedMessage('bench:loaded 0')).toBeUndefined();
    expect(parseLoadedMessage('bench:loadedX 12')).toBeUndefined();
    expect(parseLoadedMessage('something else')).toBeUndefined();
  });
});
