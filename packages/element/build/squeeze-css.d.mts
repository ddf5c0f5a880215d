/** Squeezes whitespace and comments inside css`…` templates; nothing else changes. */
export function squeezeCssTemplates(code: string): string;
