/**
 * The request's public origin as a reverse proxy states it: `Forwarded` (RFC 7239) `proto` and
 * `host`, else `X-Forwarded-Proto` and `X-Forwarded-Host`, each part falling back to the request
 * URL's own. Only for a proxy the operator trusts (the BFF's `trustProxy`): anyone can send these
 * headers, and only a proxy that sets them (replacing what the client sent) makes them true.
 *
 * Strict on purpose: a header that is too long, does not parse, or names two different values
 * (two proxies appended, or a client's value survived) yields no origin at all, never a guess.
 */

/** Longer values are not a proxy's: ignored. */
const MAX_HEADER_LENGTH = 1024;
/** `host[:port]`: a DNS name or an IPv4 address, or an IPv6 address in brackets; nothing else (no path, user, spaces). */
const HOST = /^(?:\[[0-9A-Fa-f:.]{2,45}\]|[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?)(?::\d{1,5})?$/;
const TOKEN_CHAR = /[!#$%&'*+\-.^_`|~0-9A-Za-z]/;
/** An unquoted value: a token, plus `:`, `[` and `]`, which RFC 7239 wants quoted but proxies configured by hand often do not quote (`host=app.example.com:8443`). */
const VALUE_CHAR = /[!#$%&'*+\-.^_`|~0-9A-Za-z:[\]]/;

/** The parameters of every `Forwarded` element (names lower-cased), or `undefined` if it does not parse. */
export function parseForwarded(value: string): Array<Map<string, string>> | undefined {
  if (value.length > MAX_HEADER_LENGTH) return undefined;
  const elements = [new Map<string, string>()];
  let i = 0;
  const skipSpaces = () => {
    while (value[i] === ' ' || value[i] === '\t') i++;
  };
  while (i < value.length) {
    skipSpaces();
    if (value[i] === ',' || value[i] === ';') {
      if (value[i] === ',') elements.push(new Map());
      i++;
      continue;
    }
    if (i >= value.length) break;
    let name = '';
    while (i < value.length && TOKEN_CHAR.test(value[i]!)) name += value[i++];
    if (name === '' || value[i] !== '=') return undefined;
    i++;
    let pairValue = '';
    if (value[i] === '"') {
      i++;
      for (;;) {
        if (i >= value.length) return undefined;
        const char = value[i++]!;
        if (char === '"') break;
        if (char === '\\') {
          if (i >= value.length) return undefined;
          pairValue += value[i++];
        } else pairValue += char;
      }
    } else {
      while (i < value.length && VALUE_CHAR.test(value[i]!)) pairValue += value[i++];
      if (pairValue === '') return undefined;
    }
    const key = name.toLowerCase();
    const element = elements[elements.length - 1]!;
    // A parameter named twice in one element is not a proxy's doing.
    if (element.has(key)) return undefined;
    element.set(key, pairValue);
    skipSpaces();
    if (i < value.length && value[i] !== ',' && value[i] !== ';') return undefined;
  }
  return elements;
}

/** The one value every entry agrees on; `null` when they disagree or one is unusable; `undefined` when there is none. */
function single(values: readonly string[]): string | null | undefined {
  const distinct = new Set(values.map((v) => v.trim().toLowerCase()));
  if (distinct.size === 0) return undefined;
  if (distinct.size > 1 || distinct.has('')) return null;
  return [...distinct][0]!;
}

const commaList = (value: string | undefined): string[] | null => {
  if (value === undefined) return [];
  if (value.length > MAX_HEADER_LENGTH) return null;
  return value.split(',');
};

export interface ForwardedHeaders {
  forwarded: string | undefined;
  xForwardedProto: string | undefined;
  xForwardedHost: string | undefined;
}

/**
 * The public origin the proxy's headers state (`https://app.example.com`, default port
 * dropped, host lower-cased), the parts they leave out taken from `requestUrl`; `undefined`
 * when they state nothing, or anything ambiguous or malformed.
 */
export function forwardedOrigin(headers: ForwardedHeaders, requestUrl: string): string | undefined {
  let proto: string | null | undefined;
  let host: string | null | undefined;
  if (headers.forwarded !== undefined) {
    const elements = parseForwarded(headers.forwarded);
    if (elements === undefined) return undefined;
    proto = single(elements.flatMap((e) => (e.has('proto') ? [e.get('proto')!] : [])));
    host = single(elements.flatMap((e) => (e.has('host') ? [e.get('host')!] : [])));
  }
  if (proto === undefined) {
    const list = commaList(headers.xForwardedProto);
    proto = list === null ? null : single(list);
  }
  if (host === undefined) {
    const list = commaList(headers.xForwardedHost);
    host = list === null ? null : single(list);
  }
  if (proto === null || host === null || (proto === undefined && host === undefined)) return undefined;
  let url: URL;
  try {
    url = new URL(requestUrl);
  } catch {
    return undefined;
  }
  const scheme = proto ?? url.protocol.slice(0, -1);
  if (scheme !== 'http' && scheme !== 'https') return undefined;
  const authority = host ?? url.host;
  if (!HOST.test(authority)) return undefined;
  try {
    const origin = new URL(`${scheme}://${authority}`).origin;
    return origin === 'null' ? undefined : origin;
  } catch {
    return undefined;
  }
}
