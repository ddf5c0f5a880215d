/** The title line of bench/RESULTS.md. */
const TITLE = '# Benchmark results';

/**
 * RESULTS.md keeps one section per labelled run (`## <label>`), so a quiet run and a loaded run
 * can both be published: writing a run replaces the section of the same label and keeps the
 * others in their order (a new label goes last). Text before the first section is the preamble,
 * replaced by `preamble`.
 */
export function mergeResults(existing: string, preamble: string, label: string, section: string): string {
  const sections: Array<{ label: string; text: string }> = [];
  const parts = existing.split(/^(?=## )/m);
  for (const part of parts) {
    if (!part.startsWith('## ')) continue;
    const heading = part.slice(3, part.indexOf('\n') === -1 ? undefined : part.indexOf('\n')).trim();
    sections.push({ label: heading, text: part.trimEnd() });
  }
  const mine = { label, text: `## ${label}\n\n${section.trim()}` };
  const at = sections.findIndex((candidate) => candidate.label === label);
  if (at === -1) sections.push(mine);
  else sections[at] = mine;
  return `${TITLE}\n\n${preamble.trim()}\n\n${sections.map((entry) => entry.text).join('\n\n')}\n`;
}
