/*
 * These functions run inside the dashboard page: the page script inlines their source text
 * (`Function.prototype.toString`), so each must be self-contained: no imports, no references
 * to anything outside its own body but its parameters and browser globals.
 */

/**
 * Whether `origin` (a serialized origin such as `http://localhost:5174`) is allowed by
 * `pattern`: an exact origin, or `scheme://host:*` meaning any port of that host (the port
 * wildcard of CSP host-sources).
 */
export function matchesOrigin(pattern: string, origin: string): boolean {
  if (pattern === origin) return true;
  const wildcard = /^(https?):\/\/([^/:]+|\[[0-9a-f:.]+\]):\*$/i.exec(pattern);
  if (!wildcard) return false;
  const parsed = /^(https?):\/\/([^/:]+|\[[0-9a-f:.]+\])(?::(\d{1,5}))?$/i.exec(origin);
  if (!parsed) return false;
  return (parsed[1] ?? '').toLowerCase() === (wildcard[1] ?? '').toLowerCase() && (parsed[2] ?? '').toLowerCase() === (wildcard[2] ?? '').toLowerCase();
}

/** What the page knows about who embeds it. */
export interface ParentOriginClues {
  /** `location.ancestorOrigins[0]` where the browser provides it (Chromium, WebKit). */
  ancestorOrigin: string | undefined;
  /** The `?origin=` query parameter of the page URL. */
  queryOrigin: string | null;
  /** `document.referrer`. */
  referrer: string;
}

/**
 * Picks the one origin the page will talk to, or `undefined` when none is allowed.
 * The browser's own `ancestorOrigins` wins (it cannot be forged by a URL); without it the
 * `?origin=` parameter, then the referrer's origin. The pick must match an allowed pattern.
 */
export function resolveParentOrigin(
  clues: ParentOriginClues,
  embedOrigins: readonly string[],
  matches: (pattern: string, origin: string) => boolean,
): string | undefined {
  let referrerOrigin: string | undefined;
  try {
    referrerOrigin = clues.referrer ? new URL(clues.referrer).origin : undefined;
  } catch {
    referrerOrigin = undefined;
  }
  const candidate = clues.ancestorOrigin || clues.queryOrigin || referrerOrigin;
  if (!candidate || candidate === 'null') return undefined;
  return embedOrigins.some((pattern) => matches(pattern, candidate)) ? candidate : undefined;
}
