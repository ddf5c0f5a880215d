/** Small, pure statistics for benchmark figures. Inputs are plain numbers; nothing here is timed. */

/** The median of `values` (mean of the two middle values for an even count); NaN when empty. */
export function median(values: readonly number[]): number {
  return percentile(values, 50);
}

/**
 * The `p`-th percentile (0–100) by linear interpolation between closest ranks; NaN when empty.
 * Non-finite values are ignored, so one failed run does not poison the figure.
 */
export function percentile(values: readonly number[], p: number): number {
  if (!(p >= 0 && p <= 100)) throw new RangeError(`percentile must be within 0..100, got ${p}`);
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const rank = (p / 100) * (sorted.length - 1);
  const low = Math.floor(rank);
  const high = Math.ceil(rank);
  const lowValue = sorted[low] as number;
  const highValue = sorted[high] as number;
  return lowValue + (highValue - lowValue) * (rank - low);
}

/** `value / baseline`, or NaN when either is not a finite number or the baseline is zero. */
export function ratio(value: number, baseline: number): number {
  if (!Number.isFinite(value) || !Number.isFinite(baseline) || baseline === 0) return Number.NaN;
  return value / baseline;
}
