/** How figures read in the table: fixed precision, thousands separators, `n/a` for NaN. */

const grouped = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

/** `8,123 B (7.93 KiB)`. */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes)) return 'n/a';
  return `${grouped.format(bytes)} B (${(bytes / 1024).toFixed(2)} KiB)`;
}

/** `0.79×`, or `n/a` when the ratio could not be computed. */
export function formatRatio(value: number): string {
  return Number.isFinite(value) ? `${value.toFixed(2)}×` : 'n/a';
}

/** Milliseconds with one decimal below 100 ms and none above: `3.2 ms`, `412 ms`. */
export function formatMs(ms: number): string {
  if (!Number.isFinite(ms)) return 'n/a';
  return `${ms < 100 ? ms.toFixed(1) : grouped.format(ms)} ms`;
}

/** `12,345 req/s`. */
export function formatRate(perSecond: number): string {
  return Number.isFinite(perSecond) ? `${grouped.format(perSecond)} req/s` : 'n/a';
}
