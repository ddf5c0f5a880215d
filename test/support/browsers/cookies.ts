/** Whether a browser would send `cookie` to `url` (host-only or domain match, path prefix, `Secure` over https only). */
export function cookieMatches(cookie: { domain: string; path?: string; secure?: boolean }, url: string): boolean {
  const target = new URL(url);
  const domain = cookie.domain.replace(/^\./, '');
  const host = target.hostname;
  if (host !== domain && !host.endsWith(`.${domain}`)) return false;
  const path = cookie.path || '/';
  if (!target.pathname.startsWith(path)) return false;
  return !cookie.secure || target.protocol === 'https:';
}
