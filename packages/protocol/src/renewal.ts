/**
 * When a token is renewed, the one rule both ends follow: the element schedules its renewal with
 * `renewalDelayMs`, the BFF refuses a renewal of the token it just handed out for
 * `rotationSpacingMs` of its lifetime ("too soon", 429) and hands a stored token to another holder
 * only while `reuseMinLeftMs` is left. Derived from one lifetime, the three cannot disagree: for
 * any lifetime, a holder that received a token at any point of its life renews it after the
 * spacing is over and, with the default margin, a third of what was left before `exp` (room for
 * retries).
 *
 * Why a share of the lifetime rather than seconds: a fixed margin (60 s) longer than a short
 * lifetime (30 s) made every renewal due at once, floored at a few seconds, inside a fixed
 * spacing (10 s) of the BFF: one renewal in two was refused.
 */

/** The element's default `refresh-margin`: renew this long before `exp`, when the lifetime allows. */
export const DEFAULT_RENEWAL_MARGIN_MS = 60_000;
/** The margin takes at most this share of what is left: a renewal comes no sooner than two thirds through. */
export const MAX_RENEWAL_MARGIN_SHARE = 1 / 3;
/**
 * A token answered already expired (a skewed clock, a stale copy) is renewed after this pause
 * rather than at once, so a BFF that keeps answering such tokens is not asked in a loop.
 */
export const EXPIRED_RENEWAL_DELAY_MS = 5_000;
/** The BFF's spacing of renewals of one token: at most this long (`minRotationIntervalSeconds`' default)... */
export const DEFAULT_ROTATION_SPACING_MS = 10_000;
/** ...and at most this share of the token's lifetime, well before any holder's renewal is due. */
export const MAX_ROTATION_SPACING_SHARE = 1 / 4;
/** A stored token is handed out while this share of its lifetime is left... */
export const REUSE_MIN_LEFT_SHARE = 1 / 4;
/** ...and 1.5 times the default margin, or half the lifetime when that is shorter, so a new holder does not renew at once. */
export const REUSE_MIN_LEFT_MS = 1.5 * DEFAULT_RENEWAL_MARGIN_MS;

/**
 * The margin actually kept before `exp`: the holder's `marginMs` (the `refresh-margin`), no more
 * than a third of `leftMs`, never negative.
 *
 * @example
 * renewalMarginMs(3_600_000); // 60_000
 * renewalMarginMs(30_000); // 10_000
 */
export function renewalMarginMs(leftMs: number, marginMs = DEFAULT_RENEWAL_MARGIN_MS): number {
  // NaN or a negative margin counts as none; a NaN `leftMs` leaves no room for one either.
  return Math.min(marginMs >= 0 ? marginMs : 0, leftMs > 0 ? leftMs * MAX_RENEWAL_MARGIN_SHARE : 0);
}

/**
 * How long after receiving a token its holder renews it: `leftMs` (`expiresAt - serverTime` of the
 * answer) less the margin, at least `EXPIRED_RENEWAL_DELAY_MS` or, when less than that is left,
 * `leftMs` (at `exp`). `Infinity` for a token that never expires. A token passed on by another
 * holder (a stored or shared one) counts only what is left of it: its holder renews no sooner
 * than it would have.
 *
 * @example
 * renewalDelayMs(30_000); // 20_000: a 30 s token is renewed once, 10 s before exp
 * renewalDelayMs(300_000); // 240_000: Superset's 5-minute guest token, 60 s before exp
 */
export function renewalDelayMs(leftMs: number | null, marginMs = DEFAULT_RENEWAL_MARGIN_MS): number {
  if (leftMs === null) return Infinity;
  if (!(leftMs > 0)) return EXPIRED_RENEWAL_DELAY_MS;
  return Math.max(leftMs - renewalMarginMs(leftMs, marginMs), Math.min(EXPIRED_RENEWAL_DELAY_MS, leftMs));
}

/**
 * How long after handing out a token of `lifetimeMs` the BFF refuses its holder's renewal of it
 * (429 "too soon"): `capMs` (the operator's `minRotationIntervalSeconds`), at most a quarter of
 * the lifetime. `lifetimeMs` `null`: a token that never expires, whose holders renew it only when
 * the vendor refused it (the cap alone).
 *
 * @example
 * rotationSpacingMs(3_600_000); // 10_000
 * rotationSpacingMs(15_000); // 3_750
 */
export function rotationSpacingMs(lifetimeMs: number | null, capMs = DEFAULT_ROTATION_SPACING_MS): number {
  const cap = capMs >= 0 ? capMs : DEFAULT_ROTATION_SPACING_MS;
  // An unknown lifetime (NaN, negative) is treated as one that never ends: the cap alone.
  return lifetimeMs !== null && lifetimeMs >= 0 ? Math.min(cap, lifetimeMs * MAX_ROTATION_SPACING_SHARE) : cap;
}

/**
 * The least time a stored token of `lifetimeMs` must have left to be handed to another holder:
 * a quarter of its lifetime, and 90 s or half its lifetime, whichever is shorter.
 *
 * @example
 * reuseMinLeftMs(3_600_000); // 900_000
 * reuseMinLeftMs(300_000); // 90_000
 * reuseMinLeftMs(30_000); // 15_000
 */
export function reuseMinLeftMs(lifetimeMs: number): number {
  // A lifetime that is not a number never makes a token reusable.
  if (!(lifetimeMs >= 0)) return Infinity;
  return Math.max(REUSE_MIN_LEFT_SHARE * lifetimeMs, Math.min(REUSE_MIN_LEFT_MS, lifetimeMs / 2));
}

/**
 * The most renewals one holder of tokens of `lifetimeMs` makes in any window of `windowMs` (the
 * BFF's per-session rate limit counts in such windows): it renews on the schedule
 * (`renewalDelayMs`), each time of a token with at least `reuseMinLeftMs(lifetimeMs)` left (a
 * stored token handed on with the least the BFF leaves it; a fresh one is renewed later), so two
 * of its renewals are at least that delay apart. `0` for a token that never expires (`null`,
 * `Infinity`; renewed only when the vendor refused it) and for a lifetime or window that is not a
 * number. Retries of a refused renewal come on top: the BFF's limit leaves room for them.
 *
 * @example
 * renewalsPerWindow(15_000, 60_000); // 12: a 15 s token, renewed at least every 5 s
 * renewalsPerWindow(30_000, 60_000); // 6
 * renewalsPerWindow(300_000, 60_000); // 1
 */
export function renewalsPerWindow(lifetimeMs: number | null, windowMs: number): number {
  if (lifetimeMs === null || !(lifetimeMs >= 0) || lifetimeMs === Infinity || !(windowMs > 0)) return 0;
  // Renewals at least a delay apart: at most ceil(window / delay) of them in a window [start, start + window).
  return Math.ceil(windowMs / renewalDelayMs(reuseMinLeftMs(lifetimeMs)));
}
