import { describe, expect, it } from 'vitest';
import {
  DEFAULT_ROTATION_SPACING_MS,
  EXPIRED_RENEWAL_DELAY_MS,
  renewalDelayMs,
  renewalMarginMs,
  renewalsPerWindow,
  reuseMinLeftMs,
  rotationSpacingMs,
} from './renewal.js';

const S = 1000;
// 15 s to a day, about 10 a decade, and the vendors' own: Superset's 300 s guest token, a
// 10-minute signed embed, Explo's default hour, odd lengths near the rule's corners.
const sweep = Array.from({ length: 38 }, (_, i) => Math.round(15 * S * 10 ** (i / 10))).filter((ms) => ms <= 86_400 * S);
const LIFETIMES = [
  ...new Set([15 * S, 16 * S, 20 * S, 29 * S, 30 * S, 40 * S, 45 * S, 89 * S, 90 * S, 179 * S, 180 * S, 300 * S, 600 * S, 3600 * S, 86_400 * S, ...sweep]),
];
// The operator may lengthen or shorten the BFF's spacing (`minRotationIntervalSeconds`).
const CAPS = [0, DEFAULT_ROTATION_SPACING_MS, 60 * S, 3600 * S];
// The element's `refresh-margin`: its default, none, and ones longer than short lifetimes.
const MARGINS = [undefined, 0, 10 * S, 60 * S, 300 * S, 86_400 * S];

describe('the renewal rule, over every lifetime from 15 s to a day', () => {
  it('has a holder renew after the BFF spacing allows it and before exp, however late in its life it got the token', () => {
    for (const lifetime of LIFETIMES) {
      // A fresh token, and a stored one handed on at any point until it stops being reusable.
      const ages = [0, 1, lifetime / 10, lifetime / 2, lifetime - reuseMinLeftMs(lifetime)];
      for (const cap of CAPS) {
        const spacing = rotationSpacingMs(lifetime, cap);
        for (const margin of MARGINS) {
          for (const age of ages) {
            const left = lifetime - age;
            const delay = renewalDelayMs(left, margin);
            const at = `lifetime ${lifetime} ms, cap ${cap}, margin ${margin}, received ${age} ms old`;
            // The BFF measures the spacing from the moment it handed the token out: at or before `age`.
            expect(age + delay, at).toBeGreaterThan(spacing);
            expect(delay, at).toBeLessThanOrEqual(left);
            expect(delay, at).toBeGreaterThanOrEqual((2 / 3) * left);
          }
        }
      }
    }
  });

  it('leaves room for retries before exp with the default margin: a third of the lifetime, at most a minute', () => {
    for (const lifetime of LIFETIMES) {
      const room = lifetime - renewalDelayMs(lifetime);
      expect(room, `lifetime ${lifetime}`).toBeCloseTo(Math.min(60 * S, lifetime / 3), 6);
      expect(room).toBeGreaterThanOrEqual(5 * S);
      // A stored token handed on with the least that is left still leaves room for a retry or two.
      const handedOn = reuseMinLeftMs(lifetime);
      expect(handedOn - renewalDelayMs(handedOn), `lifetime ${lifetime}, handed on`).toBeGreaterThanOrEqual(2.5 * S);
    }
  });

  it('renews about once per lifetime, never every few seconds', () => {
    for (const lifetime of LIFETIMES) {
      for (const margin of MARGINS) {
        const delay = renewalDelayMs(lifetime, margin);
        expect(delay, `lifetime ${lifetime}, margin ${margin}`).toBeGreaterThanOrEqual(10 * S);
        // At most two renewals per lifetime, whatever the margin asked.
        expect(lifetime / delay).toBeLessThanOrEqual(1.5);
      }
    }
    expect(renewalDelayMs(30 * S)).toBe(20 * S);
    expect(renewalDelayMs(300 * S)).toBe(240 * S);
    expect(renewalDelayMs(3600 * S)).toBe(3540 * S);
    expect(renewalDelayMs(86_400 * S)).toBe(86_340 * S);
  });

  it("spaces the BFF's renewals of one token by the operator's cap, at most a quarter of its lifetime", () => {
    expect(rotationSpacingMs(3600 * S)).toBe(DEFAULT_ROTATION_SPACING_MS);
    expect(rotationSpacingMs(30 * S)).toBe(7.5 * S);
    expect(rotationSpacingMs(15 * S)).toBe(3.75 * S);
    expect(rotationSpacingMs(300 * S, 600 * S)).toBe(75 * S);
    expect(rotationSpacingMs(null)).toBe(DEFAULT_ROTATION_SPACING_MS);
    expect(rotationSpacingMs(null, 30 * S)).toBe(30 * S);
  });

  it('hands a stored token on while a quarter of its lifetime and 90 s (or half of it) are left', () => {
    expect(reuseMinLeftMs(3600 * S)).toBe(900 * S);
    expect(reuseMinLeftMs(300 * S)).toBe(90 * S);
    expect(reuseMinLeftMs(30 * S)).toBe(15 * S);
  });

  it('counts at most renewalsPerWindow renewals of one holder in any window, and exactly that many when each token it gets is handed on with the least left', () => {
    // A holder renewing on the element's schedule for a while, each answer leaving `leftOf(k)` of a token.
    const renewalTimes = (lifetime: number, windowMs: number, leftOf: (k: number) => number) => {
      const times: number[] = [];
      for (let t = 0, k = 0; t <= 3 * windowMs + 2 * lifetime; k++) {
        t += renewalDelayMs(leftOf(k));
        times.push(t);
      }
      return times;
    };
    // The most of `times` inside one window [start, start + windowMs): it starts at one of them.
    // (A nanosecond less: sums of fractional delays drift by that much, which real timers never gain.)
    const busiestWindow = (times: number[], windowMs: number) => {
      let most = 0;
      for (let first = 0, last = 0; first < times.length; first++) {
        while (last < times.length && times[last]! < times[first]! + windowMs - 1e-6) last++;
        most = Math.max(most, last - first);
      }
      return most;
    };
    let seed = 39;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    for (const lifetime of LIFETIMES) {
      const least = reuseMinLeftMs(lifetime);
      for (const windowMs of [10 * S, 60 * S, 3600 * S]) {
        const limit = renewalsPerWindow(lifetime, windowMs);
        const at = `lifetime ${lifetime} ms, window ${windowMs} ms`;
        expect(Number.isInteger(limit) && limit >= 1, at).toBe(true);
        // Handed on with the least left every time: the soonest schedule there is, and it reaches the count.
        expect(
          busiestWindow(
            renewalTimes(lifetime, windowMs, () => least),
            windowMs,
          ),
          at,
        ).toBe(limit);
        // Fresh tokens, or stored ones with anything from the least to all of the lifetime left: never more.
        expect(
          busiestWindow(
            renewalTimes(lifetime, windowMs, () => lifetime),
            windowMs,
          ),
          at,
        ).toBeLessThanOrEqual(limit);
        expect(
          busiestWindow(
            renewalTimes(lifetime, windowMs, () => least + random() * (lifetime - least)),
            windowMs,
          ),
          at,
        ).toBeLessThanOrEqual(limit);
      }
    }
  });

  it('counts renewals a window of the BFF sees: 12 a minute at 15 s, one from three minutes on, none for a token that never expires', () => {
    expect(renewalsPerWindow(15 * S, 60 * S)).toBe(12);
    expect(renewalsPerWindow(30 * S, 60 * S)).toBe(6);
    expect(renewalsPerWindow(60 * S, 60 * S)).toBe(3);
    expect(renewalsPerWindow(180 * S, 60 * S)).toBe(1);
    expect(renewalsPerWindow(300 * S, 60 * S)).toBe(1);
    expect(renewalsPerWindow(86_400 * S, 60 * S)).toBe(1);
    expect(renewalsPerWindow(86_400 * S, 86_400 * S)).toBe(5);
    // Never more for a longer lifetime.
    const sorted = [...LIFETIMES].sort((a, b) => a - b);
    for (let i = 1; i < sorted.length; i++) expect(renewalsPerWindow(sorted[i]!, 60 * S)).toBeLessThanOrEqual(renewalsPerWindow(sorted[i - 1]!, 60 * S));
    expect(renewalsPerWindow(null, 60 * S)).toBe(0);
    expect(renewalsPerWindow(Infinity, 60 * S)).toBe(0);
  });

  it('never returns a negative or NaN wait for hostile input', () => {
    for (const left of [Number.NaN, -1, 0, -Infinity]) expect(renewalDelayMs(left)).toBe(EXPIRED_RENEWAL_DELAY_MS);
    expect(renewalDelayMs(Infinity)).toBe(Infinity);
    expect(renewalDelayMs(null)).toBe(Infinity);
    expect(renewalDelayMs(1)).toBe(1);
    expect(renewalDelayMs(4 * S)).toBe(4 * S);
    for (const margin of [Number.NaN, -5, -Infinity]) expect(renewalDelayMs(30 * S, margin)).toBe(30 * S);
    expect(renewalDelayMs(30 * S, Infinity)).toBe(20 * S);
    expect(renewalMarginMs(Number.NaN)).toBe(0);
    for (const lifetime of [Number.NaN, -1]) expect(rotationSpacingMs(lifetime)).toBe(DEFAULT_ROTATION_SPACING_MS);
    for (const cap of [Number.NaN, -1]) expect(rotationSpacingMs(3600 * S, cap)).toBe(DEFAULT_ROTATION_SPACING_MS);
    expect(rotationSpacingMs(Infinity)).toBe(DEFAULT_ROTATION_SPACING_MS);
    for (const lifetime of [Number.NaN, -1]) expect(reuseMinLeftMs(lifetime)).toBe(Infinity);
    for (const lifetime of [Number.NaN, -1, -Infinity]) expect(renewalsPerWindow(lifetime, 60 * S)).toBe(0);
    for (const windowMs of [Number.NaN, 0, -60 * S, -Infinity]) expect(renewalsPerWindow(15 * S, windowMs)).toBe(0);
    // An expired token is renewed every 5 s, so a lifetime of 0 counts as such.
    expect(renewalsPerWindow(0, 60 * S)).toBe(12);
  });
});
