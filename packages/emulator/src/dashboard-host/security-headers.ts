/** A fresh CSP nonce (128 bits, base64). */
export function createNonce(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return btoa(String.fromCharCode(...bytes));
}

/**
 * Headers of the dashboard page: only the configured origins may frame it, only its own
 * nonce'd script and style run, and it may fetch only from its own origin.
 */
export function pageSecurityHeaders(embedOrigins: readonly string[], nonce: string): Record<string, string> {
  return {
    'Content-Security-Policy': [
      "default-src 'none'",
      `script-src 'nonce-${nonce}'`,
      `style-src 'nonce-${nonce}'`,
      "connect-src 'self'",
      "img-src 'self' data:",
      "base-uri 'none'",
      "form-action 'none'",
      `frame-ancestors ${embedOrigins.join(' ')}`,
    ].join('; '),
    'X-Content-Type-Options': 'nosniff',
    // The page URL may carry `?token=`; it must not travel on in a Referer header.
    'Referrer-Policy': 'no-referrer',
    'Cache-Control': 'no-store',
  };
}

/** Headers of the JSON data route: never cached, never framed, never sniffed. */
export const DATA_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
};
