/*
 * Escaping for the markup the page helpers render (renderInitialToken, renderDashboardFrame,
 * renderElementScript): one place, so every helper escapes alike.
 */

// NUL becomes U+FFFD, as an HTML parser would make it (with a parse error), so every parser reads the same value.
const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '\0': '\ufffd' };

/** Text for a double-quoted HTML attribute value. */
export const escapeAttribute = (value: string): string => value.replace(/[&<>"'\0]/g, (char) => ENTITIES[char]!);

/**
 * A value as JSON that is safe inside a `<script>` element (as data or as a JS literal): nothing
 * in it can close the element, start markup or end a JS line.
 */
export const scriptJson = (value: unknown): string =>
  JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
