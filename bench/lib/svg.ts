/**
 * The bench's plots as hand-written SVG (no plotting dependency): distributions drawn as every
 * run's dot with the min–max range and the median marked, ours beside its baseline; and figures
 * over time as lines. Pure functions of numbers: the same data gives the same file.
 */
import { median } from './stats.js';

const COLORS = ['#1f6fb4', '#d9822b', '#3a9a4a', '#b23a48', '#7b5ea7', '#5c5c5c'];
const FONT = 'font-family="system-ui, sans-serif" font-size="12"';

/** Text and attribute values for XML. */
export function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** About `count` round tick values covering [low, high] (1, 2 or 5 times a power of ten apart). */
export function ticks(low: number, high: number, count = 5): number[] {
  if (!Number.isFinite(low) || !Number.isFinite(high)) return [];
  if (high <= low) return [low];
  const raw = (high - low) / Math.max(1, count);
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) ?? 10 * power;
  const out: number[] = [];
  for (let v = Math.ceil(low / step) * step; v <= high + step * 1e-9; v += step) out.push(Number(v.toPrecision(12)));
  return out;
}

const fmt = (v: number) => (Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 10 ? v.toFixed(1) : v.toFixed(2)).replace(/\.0+$/, '');

export interface Distribution {
  /** e.g. `ours`, `baseline`. */
  label: string;
  values: readonly number[];
}
export interface DistributionGroup {
  /** e.g. `Chromium 4m (no extra load)`. */
  label: string;
  series: readonly Distribution[];
  /** A note at the end of the group's row, e.g. `ratio 1.02×`. */
  note?: string;
}

/**
 * Horizontal strip plot: one band per group, one line per series in it, each run a dot, the
 * min–max range a thin line and the median a tall tick with its value. Non-finite values are left out.
 */
export function distributionSvg(title: string, unit: string, groups: readonly DistributionGroup[]): string {
  const clean = groups.map((g) => ({ ...g, series: g.series.map((s) => ({ ...s, values: s.values.filter(Number.isFinite) })) }));
  const all = clean.flatMap((g) => g.series.flatMap((s) => s.values));
  const left = 230;
  const right = 130;
  const plotWidth = 560;
  const lineHeight = 22;
  const top = 44;
  const bandGap = 14;
  const titleHeight = 18;
  let height = top;
  for (const g of clean) height += titleHeight + g.series.length * lineHeight + bandGap;
  height += 40;
  const width = left + plotWidth + right;
  const low = all.length === 0 ? 0 : Math.min(0, ...all);
  const high = all.length === 0 ? 1 : Math.max(...all) * 1.05 || 1;
  const x = (v: number) => left + ((v - low) / (high - low)) * plotWidth;
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" ${FONT}>`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    `<text x="${left}" y="20" font-size="14" font-weight="bold">${escapeXml(title)}</text>`,
  ];
  const axisY = height - 30;
  for (const t of ticks(low, high)) {
    out.push(`<line x1="${x(t).toFixed(1)}" y1="${top - 8}" x2="${x(t).toFixed(1)}" y2="${axisY}" stroke="#e4e4e4"/>`);
    out.push(`<text x="${x(t).toFixed(1)}" y="${axisY + 14}" text-anchor="middle" fill="#444">${fmt(t)}</text>`);
  }
  out.push(`<text x="${left + plotWidth / 2}" y="${axisY + 28}" text-anchor="middle" fill="#444">${escapeXml(unit)}</text>`);
  let y = top;
  for (const group of clean) {
    // The group's name on a line of its own, its note (the ratio) at the right end of that line.
    out.push(`<text x="8" y="${y + 13}" font-weight="bold">${escapeXml(group.label)}</text>`);
    if (group.note) out.push(`<text x="${left + plotWidth + 8}" y="${y + 13}" fill="#444">${escapeXml(group.note)}</text>`);
    y += titleHeight;
    for (const [index, series] of group.series.entries()) {
      const color = COLORS[index % COLORS.length]!;
      const cy = y + lineHeight / 2;
      out.push(`<text x="${left - 8}" y="${cy + 4}" text-anchor="end" fill="${color}">${escapeXml(series.label)} (${series.values.length})</text>`);
      if (series.values.length > 0) {
        const m = median(series.values);
        out.push(
          `<line x1="${x(Math.min(...series.values)).toFixed(1)}" y1="${cy}" x2="${x(Math.max(...series.values)).toFixed(1)}" y2="${cy}" stroke="${color}" stroke-width="1"/>`,
        );
        for (const v of series.values) out.push(`<circle cx="${x(v).toFixed(1)}" cy="${cy}" r="2.5" fill="${color}" fill-opacity="0.45"/>`);
        out.push(`<line x1="${x(m).toFixed(1)}" y1="${cy - 8}" x2="${x(m).toFixed(1)}" y2="${cy + 8}" stroke="${color}" stroke-width="2.5"/>`);
        out.push(`<text x="${(x(m) + 4).toFixed(1)}" y="${cy - 5}" fill="${color}" font-size="10">${fmt(m)}</text>`);
      } else {
        out.push(`<text x="${left + 4}" y="${cy + 4}" fill="#888">no runs</text>`);
      }
      y += lineHeight;
    }
    y += bandGap;
  }
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}

export interface TimeSeries {
  label: string;
  /** `[x, y]`, in x order or not (drawn sorted). */
  points: ReadonlyArray<readonly [number, number]>;
}

/** Lines over time (x: seconds since the start), with a legend; non-finite points are left out. */
export function timeSeriesSvg(title: string, xUnit: string, yUnit: string, series: readonly TimeSeries[]): string {
  const clean = series.map((s) => ({ ...s, points: [...s.points].filter(([a, b]) => Number.isFinite(a) && Number.isFinite(b)).sort((p, q) => p[0] - q[0]) }));
  const xs = clean.flatMap((s) => s.points.map((p) => p[0]));
  const ys = clean.flatMap((s) => s.points.map((p) => p[1]));
  const left = 70;
  const top = 44;
  const plotWidth = 640;
  const plotHeight = 300;
  const width = left + plotWidth + 300;
  const height = top + plotHeight + 50;
  const xLow = xs.length === 0 ? 0 : Math.min(0, ...xs);
  const xHigh = xs.length === 0 ? 1 : Math.max(...xs) || 1;
  const yHigh = ys.length === 0 ? 1 : Math.max(...ys) * 1.05 || 1;
  const yLow = ys.length === 0 ? 0 : Math.min(0, ...ys);
  const px = (v: number) => left + ((v - xLow) / (xHigh - xLow || 1)) * plotWidth;
  const py = (v: number) => top + plotHeight - ((v - yLow) / (yHigh - yLow || 1)) * plotHeight;
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" ${FONT}>`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    `<text x="${left}" y="20" font-size="14" font-weight="bold">${escapeXml(title)}</text>`,
  ];
  for (const t of ticks(xLow, xHigh)) {
    out.push(`<line x1="${px(t).toFixed(1)}" y1="${top}" x2="${px(t).toFixed(1)}" y2="${top + plotHeight}" stroke="#e4e4e4"/>`);
    out.push(`<text x="${px(t).toFixed(1)}" y="${top + plotHeight + 16}" text-anchor="middle" fill="#444">${fmt(t)}</text>`);
  }
  for (const t of ticks(yLow, yHigh)) {
    out.push(`<line x1="${left}" y1="${py(t).toFixed(1)}" x2="${left + plotWidth}" y2="${py(t).toFixed(1)}" stroke="#e4e4e4"/>`);
    out.push(`<text x="${left - 6}" y="${(py(t) + 4).toFixed(1)}" text-anchor="end" fill="#444">${fmt(t)}</text>`);
  }
  out.push(`<text x="${left + plotWidth / 2}" y="${top + plotHeight + 34}" text-anchor="middle" fill="#444">${escapeXml(xUnit)}</text>`);
  out.push(
    `<text x="14" y="${top + plotHeight / 2}" text-anchor="middle" fill="#444" transform="rotate(-90 14 ${top + plotHeight / 2})">${escapeXml(yUnit)}</text>`,
  );
  for (const [index, s] of clean.entries()) {
    const color = COLORS[index % COLORS.length]!;
    if (s.points.length > 0) {
      const d = s.points.map(([a, b], i) => `${i === 0 ? 'M' : 'L'}${px(a).toFixed(1)},${py(b).toFixed(1)}`).join(' ');
      out.push(`<path d="${d}" fill="none" stroke="${color}" stroke-width="2"/>`);
    }
    const ly = top + 10 + index * 18;
    out.push(`<line x1="${left + plotWidth + 12}" y1="${ly}" x2="${left + plotWidth + 32}" y2="${ly}" stroke="${color}" stroke-width="2"/>`);
    out.push(`<text x="${left + plotWidth + 38}" y="${ly + 4}">${escapeXml(s.label)}${s.points.length === 0 ? ' (no points)' : ''}</text>`);
  }
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
