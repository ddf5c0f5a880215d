import type { Row } from './row.js';

const HEADER = ['#', 'metric', 'kind', 'ours', 'baseline', 'ratio', 'target', 'result'] as const;

/** Markdown cells cannot hold a raw `|` or a line break. */
function escapeCell(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

/**
 * The results as one markdown table, columns padded so it also reads well in a terminal.
 *
 * @example
 * formatTable([{ id: '1a', metric: 'size', kind: 'fixed target', ours: '8 KB', baseline: '10 KB', ratio: '0.80×', target: '≤ 10 KB', result: 'pass' }]);
 */
export function formatTable(rows: readonly Row[]): string {
  const cells = [[...HEADER], ...rows.map((row) => [row.id, row.metric, row.kind, row.ours, row.baseline, row.ratio, row.target, row.result].map(escapeCell))];
  const widths = HEADER.map((_, column) => Math.max(3, ...cells.map((line) => [...(line[column] ?? '')].length)));
  const render = (line: readonly string[]) => `| ${line.map((cell, column) => cell + ' '.repeat((widths[column] ?? 0) - [...cell].length)).join(' | ')} |`;
  const [header, ...body] = cells;
  return [render(header ?? []), render(widths.map((width) => '-'.repeat(width))), ...body.map(render)].join('\n');
}
