/** The title line of bench/RESULTS.md. */
const TITLE = '# Benchmark results';

/**
 * RESULTS.md keeps one section per labelled run (`## <label>`), so a quiet run and a loaded run
 * can both be published: writing a run replaces the section of the same label and keeps the
 * others in their order (a new label goes last). Text before the first section is the preamble:
 * its first paragraph is the generated `preamble` (replaced); every paragraph after it was
 * written by hand (a summary of judged rows across runs) and is kept as it is. A file without
 * sections is the old single-run format, all generated: only its title survives.
 */
export function mergeResults(existing: string, preamble: string, label: string, section: string): string {
  const sections: Array<{ label: string; text: string }> = [];
  const parts = existing.split(/^(?=## )/m);
  for (const part of parts) {
    if (!part.startsWith('## ')) continue;
    const heading = part.slice(3, part.indexOf('\n') === -1 ? undefined : part.indexOf('\n')).trim();
    sections.push({ label: heading, text: part.trimEnd() });
  }
  const handWritten = sections.length === 0 ? [] : handWrittenParagraphs(parts[0]!.startsWith('## ') ? '' : parts[0]!);
  const mine = { label, text: `## ${label}\n\n${section.trim()}` };
  const at = sections.findIndex((candidate) => candidate.label === label);
  if (at === -1) sections.push(mine);
  else sections[at] = mine;
  const head = [TITLE, preamble.trim(), ...handWritten].join('\n\n');
  return `${head}\n\n${sections.map((entry) => entry.text).join('\n\n')}\n`;
}

/** The preamble's paragraphs after the title and the generated first one. */
function handWrittenParagraphs(text: string): string[] {
  const paragraphs = text
    .split(/\n\s*\n/)
    .map((paragraph) => paragraph.trim())
    .filter((paragraph) => paragraph !== '');
  if (paragraphs[0]?.startsWith(`${TITLE}`) === true) {
    const rest = paragraphs[0].slice(TITLE.length).trim();
    if (rest === '') paragraphs.shift();
    else paragraphs[0] = rest;
  }
  return paragraphs.slice(1);
}
