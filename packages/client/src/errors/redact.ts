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

// Bounds the walk of a hostile or huge error object; past them it counts as unsafe.
const MAX_WALK_NODES = 2_000;

/**
 * Whether a secret appears anywhere in `error`: its message and stack, and the own data
 * properties of it and of everything it holds (a transport's error may keep the request and its
 * headers on a property; `AggregateError` keeps its errors on one). Getters are never run. What
 * is too deep, too large or too hostile to check counts as a mention.
 */
function mentionsSecret(error: unknown, secrets: readonly string[]): boolean {
  const live = secrets.filter((s) => s.length > 0);
  const seen = new Set<object>();
  const stack: [unknown, number][] = [[error, 0]];
  try {
    while (stack.length > 0) {
      const [value, depth] = stack.pop()!;
      if (typeof value === 'string') {
        if (live.some((s) => value.includes(s))) return true;
        continue;
      }
      if (typeof value !== 'object' || value === null || seen.has(value)) continue;
      if (depth > MAX_CAUSE_DEPTH || seen.size >= MAX_WALK_NODES) return true;
      seen.add(value);
      if (value instanceof Error) stack.push([value.message, depth], [value.stack, depth]);
      else if (!Array.isArray(value) && Object.getPrototypeOf(value) !== Object.prototype) stack.push([safeString(value), depth]);
      for (const key of Reflect.ownKeys(value)) {
        const descriptor = Object.getOwnPropertyDescriptor(value, key);
        if (descriptor && 'value' in descriptor) stack.push([descriptor.value, depth + 1]);
      }
    }
  } catch {
    return true;
  }
  return false;
}

/**
 * Returns `error` unchanged when no secret appears in it or its causes; otherwise a plain `Error`
 * with the same name, `code` and redacted message and no further cause, so logging the chain
 * cannot print a secret a transport put into its own error.
 */
export function sanitizeCause(error: unknown, secrets: readonly string[]): unknown {
  if (!mentionsSecret(error, secrets)) return error;
  const source = error instanceof Error ? error : undefined;
  const message = source
    ? source.message
    : typeof (error as { message?: unknown } | null)?.message === 'string'
      ? (error as { message: string }).message
      : safeString(error);
  const copy = new Error(redact(message, secrets));
  copy.name = source?.name ?? 'Error';
  copy.stack = `${copy.name}: ${copy.message}`;
  const code = (source as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string') Object.assign(copy, { code });
  return copy;
}
