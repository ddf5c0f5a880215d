/**
 * Keeps secrets out of error messages and `cause` chains: the API token, and any user group
 * token a response body or a transport's own error might echo.
 */

const REDACTED = '[redacted]';
const SNIPPET_CHARS = 200;
const MAX_CAUSE_DEPTH = 8;
// A user group token is a credential too: a snippet of a body that carries one must not leak it.
const TOKEN_FIELD = /("(?:token|current_token)"\s*:\s*)"(?:[^"\\]|\\.)*"/g;

/** Replaces every occurrence of each secret (and every JSON `token` field value) in `text`. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret.length > 0) out = out.split(secret).join(REDACTED);
  return out.replace(TOKEN_FIELD, `$1"${REDACTED}"`);
}

/** A short, redacted, single-line excerpt of a response body for an error message. */
export function bodySnippet(body: string, secrets: readonly string[]): string {
  // Redact before cutting so a secret straddling the cut cannot survive as a prefix.
  const clean = redact(body, secrets).replace(/\s+/g, ' ').trim();
  return clean.length > SNIPPET_CHARS ? `${clean.slice(0, SNIPPET_CHARS)}…` : clean;
}

function safeString(value: unknown): string {
  try {
    return String(value);
  } catch {
    // A hostile `toString` must not turn error handling into a second failure.
    return '[unprintable]';
  }
}

function mentionsSecret(error: unknown, secrets: readonly string[], depth: number): boolean {
  if (depth > MAX_CAUSE_DEPTH || error === null || error === undefined) return false;
  const texts: string[] = [];
  if (error instanceof Error) {
    texts.push(error.message, error.stack ?? '');
  } else {
    texts.push(safeString(error));
  }
  if (texts.some((t) => secrets.some((s) => s.length > 0 && t.includes(s)))) return true;
  return error instanceof Error && mentionsSecret(error.cause, secrets, depth + 1);
}

/**
 * Returns `error` unchanged when no secret appears in it or its causes; otherwise a plain `Error`
 * with the same name, `code` and redacted message and no further cause, so logging the chain
 * cannot print a secret a transport put into its own error.
 */
export function sanitizeCause(error: unknown, secrets: readonly string[]): unknown {
  if (!mentionsSecret(error, secrets, 0)) return error;
  const source = error instanceof Error ? error : undefined;
  const copy = new Error(redact(source ? source.message : safeString(error), secrets));
  copy.name = source?.name ?? 'Error';
  copy.stack = `${copy.name}: ${copy.message}`;
  const code = (source as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string') Object.assign(copy, { code });
  return copy;
}
