/** How figures read in the table: fixed precision, thousands separators, `n/a` for NaN. */
import { median } from './stats.js';

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
  return `${msValue(ms)} ms`;
}

/** `12,345 req/s`. */
export function formatRate(perSecond: number): string {
  return Number.isFinite(perSecond) ? `${grouped.format(perSecond)} req/s` : 'n/a';
}

/**
 * A figure over several runs: `min 98 / med 125 / max 160 ms`, each value through `format`
 * with the unit once at the end. NaN values (failed runs) are left out; `n/a` when none is left.
 */
export function formatSpread(values: readonly number[], format: (value: number) => string, unit: string): string {
  const finite = values.filter(Number.isFinite);
  if (finite.length === 0) return 'n/a';
  const sorted = [...finite].sort((a, b) => a - b);
  const mid = median(sorted);
  return `min ${format(sorted[0] as number)} / med ${format(mid)} / max ${format(sorted[sorted.length - 1] as number)} ${unit}`;
}

/** Milliseconds without the unit, as `formatMs` rounds them. */
export const msValue = (ms: number): string => (ms < 100 ? ms.toFixed(1) : grouped.format(ms));

/** An integer with separators: `29,226`. */
export const countValue = (value: number): string => grouped.format(value);
